import { describe, expect, it } from 'vitest';
import { parseChain } from '../../../lambda/core/dsl/parse-chain.js';
import { printChain } from '../../../lambda/core/dsl/print-chain.js';
import type { NameResolver, Tier } from '../../../lambda/core/dsl/types.js';

// Knows every key used below and nothing else, the way the round trip needs.
const KEYS = new Set(['a', 'b', 'c', 'meta.llama3-3-70b-instruct-v1:0']);
const resolver: NameResolver = {
  resolve: (name) => (KEYS.has(name) ? { kind: 'model', key: name } : { kind: 'unknown' }),
};

function tier(...members: [string, number][]): Tier {
  return { members: members.map(([key, weight]) => ({ key, weight })) };
}

describe('printChain', () => {
  it.each([
    ['no tiers as an empty string', [], ''],
    ['a single member of weight 1 bare', [tier(['a', 1])], 'a'],
    ['a single member with a weight as name*weight', [tier(['a', 3])], 'a*3'],
    ['tiers joined by commas without spaces', [tier(['a', 1]), tier(['b', 1]), tier(['c', 1])], 'a,b,c'],
    ['a group with weights of 1 omitted', [tier(['a', 1], ['b', 3])], '(a|b*3)'],
    [
      'decimal weights in plain notation',
      [tier(['a', 0.001], ['b', 2.5], ['c', 1_000_000])],
      '(a*0.001|b*2.5|c*1000000)',
    ],
    [
      'raw ids unchanged',
      [tier(['meta.llama3-3-70b-instruct-v1:0', 1], ['a', 2])],
      '(meta.llama3-3-70b-instruct-v1:0|a*2)',
    ],
    ['tiers without members skipped', [tier(), tier(['a', 1]), tier()], 'a'],
  ])('prints %s', (_name, tiers, text) => {
    expect(printChain(tiers)).toBe(text);
  });

  it.each(['a', 'a*3', 'a,b,c', '(a|b*3),c', '(a*0.5|b*2.25|c),meta.llama3-3-70b-instruct-v1:0'])(
    'round-trips canonical text %j through parseChain unchanged',
    (text) => {
      const parsed = parseChain(text, resolver);
      expect(parsed.warnings).toEqual([]);
      expect(printChain(parsed.tiers)).toBe(text);
    },
  );

  it('prints messy but valid input in canonical form', () => {
    const parsed = parseChain(' ( a * 1 | b*03.50 ) ,(c)', resolver);
    expect(printChain(parsed.tiers)).toBe('(a|b*3.5),c');
  });
});
