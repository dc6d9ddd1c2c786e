import { describe, expect, it } from 'vitest';
import { pickWeighted, selectModel } from '../../../lambda/core/router/select-model.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { tiersOf } from '../../helpers/router-harness.js';

const none = { isBlocked: () => false, hasFailed: () => false };

describe('selection', () => {
  it('splits (A*3|B) about 75/25 over 10,000 seeded selections', () => {
    const random = seededRandom(7);
    const tiers = [
      {
        members: [
          { key: 'A', weight: 3 },
          { key: 'B', weight: 1 },
        ],
      },
    ];
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (selectModel(tiers, none, random)?.key === 'A') a++;
    expect(a / 10_000).toBeGreaterThan(0.73);
    expect(a / 10_000).toBeLessThan(0.77);
  });

  it('splits an unweighted group about evenly', () => {
    const random = seededRandom(11);
    const tiers = tiersOf([['A', 'B']]);
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (selectModel(tiers, none, random)?.key === 'A') a++;
    expect(Math.abs(a / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  it('picks from the first tier that has an eligible member', () => {
    const selection = selectModel(
      tiersOf([['A', 'B'], ['C']]),
      { ...none, isBlocked: (k) => k !== 'C' },
      Math.random,
    );
    expect(selection).toEqual({ key: 'C', tier: 1, failOpen: false });
  });

  it('fails open to the first tier when nothing is eligible, preferring members that have not failed', () => {
    const eligibility = { isBlocked: () => true, hasFailed: (k: string) => k === 'A' };
    expect(selectModel(tiersOf([['A', 'B'], ['C']]), eligibility, () => 0)).toEqual({
      key: 'B',
      tier: 0,
      failOpen: true,
    });
  });

  it('fails open to a later tier only when every member before it failed in this request', () => {
    const eligibility = { isBlocked: () => true, hasFailed: (k: string) => k === 'A' || k === 'B' };
    expect(selectModel(tiersOf([['A', 'B'], ['C']]), eligibility, () => 0)).toEqual({
      key: 'C',
      tier: 1,
      failOpen: true,
    });
  });

  it('returns nothing for an empty chain', () => {
    expect(selectModel([], none, Math.random)).toBeUndefined();
  });

  it('never picks a zero-weight total by accident', () => {
    expect(pickWeighted([], Math.random)).toBeUndefined();
    expect(pickWeighted([{ key: 'A', weight: 1 }], () => 0.999999)).toEqual({ key: 'A', weight: 1 });
  });
});
