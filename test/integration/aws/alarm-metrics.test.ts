import type { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { budgetCapId, knownBudgetCaps } from '../../../lambda/aws/budget-cap.js';
import { createEmfMetrics, type EmfMetrics } from '../../../lambda/aws/emf-metrics.js';
import { createParameterSource } from '../../../lambda/aws/parameter-snapshot.js';
import {
  METRICS,
  reportBreakerStoreFailure,
  reportSpendUse,
  reportSsmSnapshotFailure,
} from '../../../lambda/aws/powertools-evidence.js';
import type { PlannedLimit } from '../../../lambda/core/admission/limit-plan.js';
import { admissionSchema } from '../../../lambda/core/catalog/admission-config-schema.js';
import { createMetricDimensions } from '../../../lambda/core/metrics/metric-dimensions.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';
import { recordingLog } from '../../helpers/recording-log.js';

interface EmfRecord {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [field: string]: unknown;
}

let lines: string[];
let metrics: EmfMetrics;
beforeEach(() => {
  lines = [];
  metrics = createEmfMetrics({
    namespace: 'Switchyard',
    service: 'switchyard',
    dimensions: createMetricDimensions(),
    write: (line) => lines.push(line),
  });
});

/** Each series of `metric` the flushed records hold: its dimension names (sorted) and their values. */
function series(metric: string): { dimensions: string[]; record: EmfRecord }[] {
  metrics.flush();
  return lines
    .map((line) => JSON.parse(line) as EmfRecord)
    .flatMap((record) =>
      record._aws.CloudWatchMetrics.filter((d) => d.Metrics.some((m) => m.Name === metric)).map((d) => ({
        dimensions: [...(d.Dimensions[0] ?? [])].sort(),
        record,
      })),
    );
}

const limit = (scope: PlannedLimit['scope'], name: string, field: string): PlannedLimit => ({
  scope,
  name,
  kind: 'spend',
  cap: 1,
  field,
});

describe('budget metrics the per-cap alarms watch', () => {
  it('reports a spend cap per service, per scope kind and per cap, the cap never named by its key', () => {
    reportSpendUse(metrics, limit('key', 'alice', 'admission.keys.alice.usdPerDay'), 0.856);
    const budget = series(METRICS.budgetUsedPercent);
    expect(budget.map((b) => b.dimensions).sort()).toEqual([
      ['cap', 'service'],
      ['scope', 'service'],
      ['service'],
      ['service'],
    ]);
    const cap = budget.find((b) => b.dimensions.includes('cap'))?.record.cap;
    expect(cap).toMatch(/^key:[0-9a-f]{12}$/);
    for (const b of budget) expect(b.record.BudgetUsedPercent).toBe(85.6);
    expect(lines.join('\n')).not.toContain('alice');
  });

  it('names a pipeline cap by its pipeline, and every unnamed key one shared cap', () => {
    expect(budgetCapId(limit('pipeline', 'p', 'admission.pipelines.p.usdPerDay'))).toBe('pipeline:p');
    expect(budgetCapId(limit('key', 'bob', 'admission.defaultKey.usdPerDay'))).toBe('key:(default)');
    expect(budgetCapId(limit('key', 'carol', 'admission.defaultKey.usdPerDay'))).toBe('key:(default)');
    expect(budgetCapId(limit('key', 'bob', 'admission.keys.bob.usdPerDay'))).not.toBe(
      budgetCapId(limit('key', 'carol', 'admission.keys.carol.usdPerDay')),
    );
  });

  it('gives the caps the config sets the same cap values the runtime reports', () => {
    const admission = admissionSchema.parse({
      keys: { alice: { usdPerDay: 5 }, bob: { requestsPerMinute: 10 } },
      defaultKey: { usdPerDay: 1 },
      pipelines: { p: { usdPerDay: 20 }, q: { tokensPerMinute: 5 } },
    });
    expect(knownBudgetCaps(admission)).toEqual([
      {
        scope: 'key',
        cap: budgetCapId(limit('key', 'alice', 'admission.keys.alice.usdPerDay')),
        field: 'admission.keys.alice.usdPerDay',
        usdPerDay: 5,
      },
      { scope: 'key', cap: 'key:(default)', field: 'admission.defaultKey.usdPerDay', usdPerDay: 1 },
      { scope: 'pipeline', cap: 'pipeline:p', field: 'admission.pipelines.p.usdPerDay', usdPerDay: 20 },
    ]);
  });
});

describe('the cap dimension rule', () => {
  it('lets through only the shapes of a cap id, so a raw key name would become (other)', () => {
    const bound = createMetricDimensions().bound;
    expect(bound({ cap: 'key:0123456789ab' })).toEqual({ cap: 'key:0123456789ab' });
    expect(bound({ cap: 'pipeline:comment-filter' })).toEqual({ cap: 'pipeline:comment-filter' });
    expect(bound({ cap: 'key:(default)' })).toEqual({ cap: 'key:(default)' });
    expect(bound({ cap: 'key:alice' })).toEqual({ cap: '(other)' });
    expect(bound({ operation: 'cool-route' })).toEqual({ operation: 'cool-route' });
    expect(bound({ operation: 'delete-everything' })).toEqual({ operation: '(other)' });
  });
});

describe('store failure metrics', () => {
  it('counts a breaker store failure once for the alarm and once per operation', () => {
    reportBreakerStoreFailure(metrics, 'record');
    const failures = series(METRICS.breakerStoreFailures);
    expect(failures.map((f) => f.dimensions)).toEqual([['service'], ['operation', 'service']]);
    expect(failures[1]?.record.operation).toBe('record');
    expect(lines).toHaveLength(1);
  });

  it('counts an SSM snapshot failure in one service-wide record, so the sum counts it once', () => {
    reportSsmSnapshotFailure(metrics);
    expect(series(METRICS.ssmSnapshotFailures).map((f) => f.dimensions)).toEqual([['service']]);
  });
});

describe('SSM snapshot failures reach the metric hook', () => {
  let ssm: FakeSsm;
  let client: SSMClient;
  beforeAll(async () => {
    ssm = await startFakeSsm();
    client = fakeSsmClient(ssm);
  });
  afterAll(() => ssm.close());

  it('hears each failed read, and nothing for a read that succeeds', async () => {
    const clock = createFakeClock();
    const failures: unknown[] = [];
    const source = createParameterSource({
      client,
      prefix: '/alarm-metrics',
      cacheMs: 30_000,
      log: recordingLog('warn').log,
      clock,
      random: () => 0.5,
      onReadFailure: (error) => failures.push(error),
    });
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 1);
    await expect(source.read()).rejects.toThrow('have not been read yet');
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).name).toBe('ThrottlingException');
    clock.advance(60_000);
    await source.read();
    expect(failures).toHaveLength(1);
  });
});
