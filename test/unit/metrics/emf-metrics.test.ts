import { describe, expect, it } from 'vitest';
import { createEmfMetrics } from '../../../lambda/aws/emf-metrics.js';
import { createMetricDimensions } from '../../../lambda/core/metrics/metric-dimensions.js';

interface EmfRecord {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] };
  [field: string]: unknown;
}

function buffer() {
  const lines: string[] = [];
  const metrics = createEmfMetrics({
    namespace: 'Switchyard',
    service: 'switchyard',
    dimensions: createMetricDimensions(),
    write: (line) => lines.push(line),
    now: () => 1_700_000_000_000,
  });
  const records = () => lines.map((l) => JSON.parse(l) as EmfRecord);
  return { metrics, records };
}

describe('EMF metric buffer', () => {
  it.each([
    [100, [100]],
    [101, [100, 1]],
  ])('keeps %i values of one metric in records of at most 100 values each (EMF limit)', (n, sizes) => {
    const { metrics, records } = buffer();
    for (let i = 0; i < n; i += 1) metrics.add('Attempts', 'Count', 1, { pipeline: 'p', model: 'a' });
    metrics.flush();
    expect(records().map((r) => (Array.isArray(r.Attempts) ? r.Attempts.length : 1))).toEqual(sizes);
  });

  it('counts the cold start once per container, per service and function name', () => {
    const { metrics, records } = buffer();
    metrics.coldStart('Switchyard-Api');
    metrics.flush();
    metrics.coldStart('Switchyard-Api');
    metrics.flush();
    expect(records()).toHaveLength(1);
    expect(records()[0]).toMatchObject({
      ColdStart: 1,
      function_name: 'Switchyard-Api',
      service: 'switchyard',
    });
    expect(records()[0]?._aws.CloudWatchMetrics.map((d) => d.Dimensions)).toEqual([
      [['service']],
      [['service', 'function_name']],
    ]);
  });

  it('keeps a metric whose dimensions disagree with a record out of it, in a record of its own', () => {
    const { metrics, records } = buffer();
    metrics.add('BudgetUsedPercent', 'Percent', 50, { scope: 'key' });
    metrics.add('BudgetUsedPercent', 'Percent', 80, { scope: 'pipeline' });
    metrics.flush();
    expect(records().map((r) => [r.scope, r.BudgetUsedPercent])).toEqual([
      ['key', 50],
      ['pipeline', 80],
    ]);
    expect(records()[0]?._aws).toMatchObject({ Timestamp: 1_700_000_000_000 });
  });
});
