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
    expect(selection).toEqual({ key: 'C', tier: 1, failOpen: false, route: 'C' });
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

  it('gives a draw exactly on the edge between two members to the later one', () => {
    const members = [
      { key: 'A', weight: 1 },
      { key: 'B', weight: 3 },
    ];
    expect(pickWeighted(members, () => 0)?.key).toBe('A');
    expect(pickWeighted(members, () => 0.2499)?.key).toBe('A');
    expect(pickWeighted(members, () => 0.25)?.key).toBe('B');
  });

  it('picks the first member when every weight is zero', () => {
    const members = [
      { key: 'A', weight: 0 },
      { key: 'B', weight: 0 },
    ];
    expect(pickWeighted(members, () => 0.9)?.key).toBe('A');
  });

  it('retries the first tier when every member failed in this request, fail-open only if it is blocked', () => {
    const failedAll = { isBlocked: () => false, hasFailed: () => true };
    expect(selectModel(tiersOf([['A', 'B'], ['C']]), failedAll, () => 0.5)).toEqual({
      key: 'B',
      tier: 0,
      failOpen: false,
    });
    const blockedB = { isBlocked: (k: string) => k === 'B', hasFailed: () => true };
    expect(selectModel(tiersOf([['A', 'B'], ['C']]), blockedB, () => 0.5)).toEqual({
      key: 'B',
      tier: 0,
      failOpen: true,
    });
  });

  it('skips a member that failed in this request even when its breaker is closed', () => {
    const eligibility = { isBlocked: () => false, hasFailed: (k: string) => k === 'A' };
    expect(selectModel(tiersOf([['A', 'B']]), eligibility, () => 0)).toEqual({
      key: 'B',
      tier: 0,
      failOpen: false,
      route: 'B',
    });
  });
});
