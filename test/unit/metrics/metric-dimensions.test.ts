import { describe, expect, it } from 'vitest';
import { stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import { createMetricDimensions } from '../../../lambda/core/metrics/metric-dimensions.js';

const rule = createMetricDimensions({
  scopeOf: stateScopeIn((pipeline) => pipeline === 'p'),
  isModel: (key) => key === 'a',
});

describe('metric dimension rule', () => {
  it.each([
    [{ pipeline: 'p' }, { pipeline: 'p' }],
    [{ pipeline: 'chain:(a*3|b)' }, { pipeline: '(ad-hoc)' }],
    [{ pipeline: 'adhoc' }, { pipeline: '(ad-hoc)' }],
    [{ pipeline: 'f-o' }, { pipeline: 'env:MODEL_F_O' }],
    [{ model: 'a' }, { model: 'a' }],
    [{ model: 'a~azure' }, { model: 'a~azure' }],
    [{ model: 'gpt-4o-mini' }, { model: '(other)' }],
    [
      { kind: 'spend', policy: 'closed', scope: 'key' },
      { kind: 'spend', policy: 'closed', scope: 'key' },
    ],
    [
      { kind: 'alice', policy: 'x', scope: 'alice' },
      { kind: '(other)', policy: '(other)', scope: '(other)' },
    ],
    [{ pipeline: undefined, model: 'a' }, { model: 'a' }],
  ])('bounds %j to %j', (raw, bounded) => {
    expect(rule.bound(raw)).toEqual(bounded);
  });
});
