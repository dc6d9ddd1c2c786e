/** Weighted choice inside a tier at the ends of the random range (lambda/core/router/select-model.ts). */
import { describe, expect, it } from 'vitest';
import { pickWeighted } from '../../../lambda/core/router/select-model.js';

const members = [
  { key: 'a', weight: 1 },
  { key: 'b', weight: 3 },
];

describe('pickWeighted', () => {
  it('0 picks the first member; just under 1/4 still the first; exactly 1/4 the second', () => {
    expect(pickWeighted(members, () => 0)?.key).toBe('a');
    expect(pickWeighted(members, () => 0.2499999)?.key).toBe('a');
    expect(pickWeighted(members, () => 0.25)?.key).toBe('b');
  });

  it('a random source that returns 1 (outside [0, 1)) still picks the last member, never nothing', () => {
    expect(pickWeighted(members, () => 1)?.key).toBe('b');
  });

  it('no members picks nothing; weights that sum to 0 pick the first', () => {
    expect(pickWeighted([], () => 0.5)).toBeUndefined();
    const zero = [
      { key: 'z', weight: 0 },
      { key: 'y', weight: 0 },
    ];
    expect(pickWeighted(zero, () => 0.5)?.key).toBe('z');
  });
});
