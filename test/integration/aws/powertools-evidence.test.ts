import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmfMetrics, type EmfMetrics } from '../../../lambda/aws/emf-metrics.js';
import {
  METRICS,
  powertoolsLedger,
  powertoolsLogger,
  reportAdmissionStoreFailure,
  reportBreakerOpened,
  reportSpendUse,
} from '../../../lambda/aws/powertools-evidence.js';
import type { BreakerOpened } from '../../../lambda/core/breaker/breakers.js';
import { stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import type { RequestLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { createMetricDimensions } from '../../../lambda/core/metrics/metric-dimensions.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { attemptLine, requestLine } from '../../helpers/ledger-lines.js';

interface EmfRecord {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [field: string]: unknown;
}

/** One metric under one dimension set, as CloudWatch reads it from a record. */
interface Series {
  metric: string;
  /** Dimension names, sorted. */
  dimensions: string[];
  /** The record's value of each of those dimensions. */
  values: Record<string, unknown>;
  value: unknown;
}

let output: CapturedOutput;
beforeEach(() => {
  output = captureProcessOutput();
});
afterEach(() => output.restore());

/** A metric buffer whose records go to `lines`, on the rule of a config with pipeline `p` and models `a`, `b`. */
function buffer(lines: string[]): EmfMetrics {
  return createEmfMetrics({
    namespace: 'Switchyard',
    service: 'switchyard',
    dimensions: createMetricDimensions({
      scopeOf: stateScopeIn((pipeline) => pipeline === 'p'),
      isModel: (key) => key === 'a' || key === 'b',
    }),
    write: (line) => lines.push(line),
  });
}

function seriesOf(lines: readonly string[]): Series[] {
  return lines.flatMap((line) => {
    const record = JSON.parse(line) as EmfRecord;
    return record._aws.CloudWatchMetrics.flatMap((d) =>
      d.Metrics.map((m) => {
        const dimensions = [...(d.Dimensions[0] ?? [])].sort();
        const values = Object.fromEntries(dimensions.map((n) => [n, record[n]]));
        return { metric: m.Name, dimensions, values, value: record[m.Name] };
      }),
    );
  });
}

const ledgerOn = (metrics: EmfMetrics) =>
  powertoolsLedger(new Logger({ serviceName: 'switchyard' }), metrics);
const log = () => powertoolsLogger(new Logger({ serviceName: 'switchyard' }));

const opening = (over: Partial<BreakerOpened> = {}): BreakerOpened => ({
  pipeline: 'p',
  model: 'a',
  reason: 'consecutive_429',
  openUntil: 0,
  recovery: 'window',
  alert: false,
  ...over,
});

describe('breaker-opening metrics', () => {
  it.each(['upstream_auth', 'model_not_found'] as const)(
    'counts a %s opening as a quarantine, once for the alarm and once per pipeline and model',
    (reason) => {
      const lines: string[] = [];
      const metrics = buffer(lines);
      reportBreakerOpened(log(), metrics, opening({ reason, alert: true }));
      metrics.flush();
      const quarantine = seriesOf(lines).filter((s) => s.metric === METRICS.quarantineOpenings);
      expect(quarantine.map((q) => q.dimensions)).toEqual([['service'], ['model', 'pipeline', 'service']]);
      expect(quarantine[1]?.values).toEqual({ pipeline: 'p', model: 'a', service: 'switchyard' });
      expect(seriesOf(lines).filter((s) => s.metric === METRICS.breakerOpenings)).toHaveLength(2);
    },
  );

  it.each(['consecutive_429', 'failure_rate'] as const)(
    'counts a routine %s opening as an opening only',
    (reason) => {
      const lines: string[] = [];
      const metrics = buffer(lines);
      reportBreakerOpened(log(), metrics, opening({ reason }));
      metrics.flush();
      expect(seriesOf(lines).filter((s) => s.metric === METRICS.breakerOpenings)).toHaveLength(2);
      expect(seriesOf(lines).filter((s) => s.metric === METRICS.quarantineOpenings)).toEqual([]);
    },
  );
});

describe('exhausted-request metrics', () => {
  it('counts a request a last resort answered as exhausted: every route failed all the same', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    const ledger = ledgerOn(metrics);
    const reasons: RequestLedgerEntry['reason'][] = ['last_resort', 'exhausted', 'success', 'stopped'];
    for (const reason of reasons) ledger(requestLine({ reason, route: 'a:503,b:503' }));
    metrics.flush();
    const exhausted = seriesOf(lines).filter((s) => s.metric === METRICS.exhausted);
    expect(exhausted.map((s) => [s.dimensions, s.value])).toEqual([
      [['service'], [1, 1]],
      [
        ['pipeline', 'service'],
        [1, 1],
      ],
    ]);
  });
});

describe('EMF records', () => {
  it('writes one record for a single-attempt request, every metric under its own dimension sets', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    const ledger = ledgerOn(metrics);
    ledger(attemptLine());
    ledger(requestLine({ latencyMs: 42 }));
    metrics.flush();
    expect(lines).toHaveLength(1);
    expect(
      seriesOf(lines)
        .map((s) => `${s.metric} ${s.dimensions.join('+')} ${JSON.stringify(s.value)}`)
        .sort(),
    ).toEqual([
      'Attempts model+pipeline+service 1',
      'Attempts service 1',
      'RequestLatency pipeline+service 42',
      'RequestLatency service 42',
      'Requests pipeline+service 1',
      'Requests service 1',
    ]);
  });

  it('writes a second record only for a second model, and each model keeps its own counts', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    const ledger = ledgerOn(metrics);
    ledger(attemptLine({ model: 'a', outcome: 'unavailable', status: 503 }));
    ledger(attemptLine({ model: 'b', attempt: 2, action: 'fallback' }));
    ledger(requestLine({ attempts: 2 }));
    metrics.flush();
    expect(lines).toHaveLength(2);
    const attempts = seriesOf(lines).filter((s) => s.metric === METRICS.attempts);
    expect(attempts.filter((s) => s.dimensions.length === 1).map((s) => s.value)).toEqual([1, 1]);
    expect(attempts.filter((s) => s.dimensions.includes('model')).map((s) => s.values.model)).toEqual([
      'a',
      'b',
    ]);
  });

  it('writes nothing at all when an invocation has no metrics, and each flush only what came since the last', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    metrics.flush();
    expect(lines).toEqual([]);
    ledgerOn(metrics)(requestLine());
    metrics.flush();
    metrics.flush();
    expect(lines).toHaveLength(1);
    expect(output.text()).not.toContain('No application metrics');
  });
});

describe('bounded metric dimensions', () => {
  it('gives every metric of an ad-hoc chain one dimension value, and every spelling of an override-only pipeline its variable', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    const ledger = ledgerOn(metrics);
    for (const pipeline of ['chain:(a|b)', 'chain:(a|b*2)', 'f-o', 'F.O', 'p']) {
      ledger(attemptLine({ pipeline, action: 'fallback' }));
      ledger(requestLine({ pipeline }));
    }
    metrics.flush();
    for (const metric of [METRICS.attempts, METRICS.fallbacks, METRICS.requests, METRICS.requestLatency]) {
      const values = seriesOf(lines)
        .filter((s) => s.metric === metric && s.dimensions.includes('pipeline'))
        .map((s) => s.values.pipeline);
      expect(new Set(values)).toEqual(new Set(['(ad-hoc)', 'env:MODEL_F_O', 'p']));
    }
  });

  it('keeps 1,000 distinct ad-hoc chains (and other values a caller chooses) to one (ad-hoc) value on every metric', () => {
    const lines: string[] = [];
    const metrics = buffer(lines);
    const ledger = ledgerOn(metrics);
    for (let i = 0; i < 1_000; i += 1) {
      // Weights, order and spacing: each a new chain text, as a caller may send it.
      const pipeline = `chain:(a*${i + 1}|b*${1_000 - i})`;
      ledger(attemptLine({ pipeline, requestId: `r${i}`, model: i % 2 ? 'a' : 'b', action: 'fallback' }));
      ledger(
        requestLine({ pipeline, requestId: `r${i}`, reason: 'exhausted', clientRequestId: `client-${i}` }),
      );
      // The breakers keep every ad-hoc chain under the reserved name `adhoc`; the rule maps both alike.
      reportBreakerOpened(log(), metrics, opening({ pipeline: i % 2 ? 'adhoc' : pipeline, alert: true }));
      // A model key outside the config could only come from a defect: it must not become a metric either.
      ledger(attemptLine({ pipeline: `chain:x${i}`, model: `raw-model-${i}` }));
    }
    reportAdmissionStoreFailure(metrics, {
      kind: 'spend',
      policy: 'closed',
      phase: 'admit',
      error: new Error('x'),
    });
    reportSpendUse(
      metrics,
      { scope: 'key', name: 'alice', kind: 'spend', cap: 1, field: 'admission.keys.alice.usdPerDay' },
      0.5,
    );
    metrics.flush();
    const all = seriesOf(lines);
    const metricNames = new Set(all.map((s) => s.metric));
    expect(metricNames).toEqual(
      new Set([
        METRICS.attempts,
        METRICS.fallbacks,
        METRICS.requests,
        METRICS.requestLatency,
        METRICS.exhausted,
        METRICS.breakerOpenings,
        METRICS.quarantineOpenings,
        METRICS.admissionStoreFailures,
        METRICS.budgetUsedPercent,
      ]),
    );
    for (const metric of metricNames) {
      const own = all.filter((s) => s.metric === metric);
      const pipelines = new Set(
        own.filter((s) => s.dimensions.includes('pipeline')).map((s) => s.values.pipeline),
      );
      expect(
        [...pipelines].filter((p) => p !== '(ad-hoc)'),
        metric,
      ).toEqual([]);
      // Every distinct set of dimension values is one billed metric: a handful, not thousands.
      const distinct = new Set(own.map((s) => JSON.stringify(s.values)));
      expect(distinct.size, metric).toBeLessThanOrEqual(4);
    }
    const models = new Set(all.filter((s) => s.dimensions.includes('model')).map((s) => s.values.model));
    expect(models).toEqual(new Set(['a', 'b', '(other)']));
    expect(JSON.stringify(lines)).not.toContain('alice');
  });
});
