import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  METRICS,
  powertoolsLedger,
  powertoolsLogger,
  reportBreakerOpened,
} from '../../../lambda/aws/powertools-evidence.js';
import type { BreakerOpened } from '../../../lambda/core/breaker/breakers.js';
import { stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import type { RequestLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { attemptLine, requestLine } from '../../helpers/ledger-lines.js';

interface EmfRecord {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [field: string]: unknown;
}

let output: CapturedOutput;
beforeEach(() => {
  output = captureProcessOutput();
});
afterEach(() => output.restore());

/** The EMF records written so far that carry `metric`, with their dimension names. */
function records(metric: string): { dimensions: string[]; record: EmfRecord }[] {
  return output
    .text()
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as EmfRecord)
    .filter((r) => r._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === metric))
    .map((record) => ({ dimensions: record._aws.CloudWatchMetrics[0]?.Dimensions[0] ?? [], record }));
}

function open(reason: BreakerOpened['reason'], alert: boolean): void {
  const metrics = new Metrics({ namespace: 'Switchyard', serviceName: 'switchyard' });
  const log = powertoolsLogger(new Logger({ serviceName: 'switchyard' }));
  reportBreakerOpened(log, metrics, {
    pipeline: 'p',
    model: 'm',
    reason,
    openUntil: 0,
    recovery: 'window',
    alert,
  });
}

describe('breaker-opening metrics', () => {
  it.each([
    ['upstream_auth', true],
    ['model_not_found', true],
  ] as const)(
    'counts a %s opening as a quarantine, once for the alarm and once per pipeline and model',
    (reason, alert) => {
      open(reason, alert);
      const quarantine = records(METRICS.quarantineOpenings);
      expect(quarantine.map((q) => q.dimensions.sort())).toEqual([
        ['service'],
        ['model', 'pipeline', 'service'],
      ]);
      expect(quarantine[1]?.record).toMatchObject({ pipeline: 'p', model: 'm', service: 'switchyard' });
      expect(records(METRICS.breakerOpenings)).toHaveLength(2);
    },
  );

  it.each([
    ['consecutive_429', false],
    ['failure_rate', false],
  ] as const)('counts a routine %s opening as an opening only', (reason, alert) => {
    open(reason, alert);
    expect(records(METRICS.breakerOpenings)).toHaveLength(2);
    expect(records(METRICS.quarantineOpenings)).toEqual([]);
  });
});

describe('exhausted-request metrics', () => {
  const requestLine = (reason: RequestLedgerEntry['reason']): RequestLedgerEntry => ({
    type: 'request',
    requestId: 'r',
    pipeline: 'p',
    reason,
    attempts: 2,
    route: 'a:503,b:503',
    latencyMs: 5,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    stream: false,
  });

  it('counts a request a last resort answered as exhausted: every route failed all the same', () => {
    const ledger = powertoolsLedger(
      new Logger({ serviceName: 'switchyard' }),
      new Metrics({ namespace: 'Switchyard', serviceName: 'switchyard' }),
    );
    for (const reason of ['last_resort', 'exhausted', 'success', 'stopped'] as const)
      ledger(requestLine(reason));
    // two records per exhausted request: the service's and the pipeline's
    expect(records(METRICS.exhausted)).toHaveLength(4);
  });
});

describe('pipeline dimensions', () => {
  it('gives every metric of an ad-hoc chain one dimension value, and every spelling of an override-only pipeline its variable', () => {
    const ledger = powertoolsLedger(
      new Logger({ serviceName: 'switchyard' }),
      new Metrics({ namespace: 'Switchyard', serviceName: 'switchyard' }),
      stateScopeIn((pipeline) => pipeline === 'p'),
    );
    for (const pipeline of ['chain:(a|b)', 'chain:(a|b*2)', 'f-o', 'F.O', 'p']) {
      ledger(attemptLine({ pipeline, action: 'fallback' }));
      ledger(requestLine({ pipeline }));
    }
    for (const metric of [METRICS.attempts, METRICS.fallbacks, METRICS.requests, METRICS.requestLatency]) {
      const values = records(metric)
        .filter((r) => r.dimensions.includes('pipeline'))
        .map((r) => r.record.pipeline);
      expect(new Set(values)).toEqual(new Set(['(ad-hoc)', 'env:MODEL_F_O', 'p']));
    }
  });
});
