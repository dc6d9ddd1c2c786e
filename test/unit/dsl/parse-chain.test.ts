import { describe, expect, it } from 'vitest';
import { parseChain } from '../../../lambda/core/dsl/parse-chain.js';
import type { NameResolver, ParsedChain } from '../../../lambda/core/dsl/types.js';
import { MAX_CHAIN_WARNINGS } from '../../../lambda/core/dsl/warning-list.js';
import { fakeResolver } from '../../helpers/fake-resolver.js';

// Keys a, b, c; `fast` is an alias of a; one raw id belongs to c alone, another is shared by b and c.
const resolver = fakeResolver;

/** Tiers in chain-like notation, `a*3` for weighted members, so tables stay readable. */
function tiersOf(parsed: ParsedChain): string[][] {
  return parsed.tiers.map((tier) =>
    tier.members.map((m) => (m.weight === 1 ? m.key : `${m.key}*${m.weight}`)),
  );
}

function warningsOf(parsed: ParsedChain): [string, number][] {
  return parsed.warnings.map((w) => [w.message, w.position]);
}

describe('parseChain', () => {
  it('resolves the documented example with one warning per problem', () => {
    const parsed = parseChain('(a|b),,(),c,a,nosuchmodel', resolver);
    expect(tiersOf(parsed)).toEqual([['a', 'b'], ['c']]);
    expect(warningsOf(parsed)).toEqual([
      ['empty tier at 6', 6],
      ['empty group at 7', 7],
      ["duplicate model 'a' at 12", 12],
      ["unknown model 'nosuchmodel' at 14", 14],
    ]);
  });

  it.each([
    ['a bare name is a tier of one', 'a', [['a']]],
    ['commas make priority tiers in order', 'c,a,b', [['c'], ['a'], ['b']]],
    ['a group is one tier', '(a|b),c', [['a', 'b'], ['c']]],
    ['a group of one is a tier of one', '(a)', [['a']]],
    ['whitespace around tokens is ignored', '  ( a |\tb )\n,  c ', [['a', 'b'], ['c']]],
    ['an empty chain gives no tiers and no warning', '', []],
    ['a blank chain gives no tiers and no warning', ' \t\n ', []],
  ])('%s: %j', (_name, chain, tiers) => {
    const parsed = parseChain(chain, resolver);
    expect(tiersOf(parsed)).toEqual(tiers);
    expect(parsed.warnings).toEqual([]);
  });

  describe('weights', () => {
    it.each([
      ['an integer weight', '(a*3|b)', [['a*3', 'b']]],
      ['a decimal weight', '(a*2.5|b*0.5)', [['a*2.5', 'b*0.5']]],
      ['a weight with a leading dot', '(a*.5|b)', [['a*0.5', 'b']]],
      ['spaces around the star', '(a * 3 | b)', [['a*3', 'b']]],
      ['the smallest weight', '(a*0.001|b)', [['a*0.001', 'b']]],
      ['the largest weight', '(a*1000000|b)', [['a*1000000', 'b']]],
      ['a weight of 1 written out', '(a*1|b)', [['a', 'b']]],
      ['a weight on a bare name, kept without a warning', 'a*3,b', [['a*3'], ['b']]],
    ])('accepts %s: %j', (_name, chain, tiers) => {
      const parsed = parseChain(chain, resolver);
      expect(tiersOf(parsed)).toEqual(tiers);
      expect(parsed.warnings).toEqual([]);
    });
  });

  describe('names', () => {
    it('resolves an alias to its model key', () => {
      expect(tiersOf(parseChain('fast,b', resolver))).toEqual([['a'], ['b']]);
    });

    it('resolves a raw provider id with dots, dashes and a colon', () => {
      expect(tiersOf(parseChain('(meta.llama3-3-70b-instruct-v1:0|a)', resolver))).toEqual([['c', 'a']]);
    });

    it('drops an alias of an earlier model as a duplicate', () => {
      const parsed = parseChain('a,fast', resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(warningsOf(parsed)).toEqual([["duplicate model 'fast' at 2: same as 'a'", 2]]);
    });

    it('drops a model key after its alias, keeping the first place', () => {
      const parsed = parseChain('(b|fast),a', resolver);
      expect(tiersOf(parsed)).toEqual([['b', 'a']]);
      expect(warningsOf(parsed)).toEqual([["duplicate model 'a' at 9", 9]]);
    });

    it('drops a duplicate inside the same group and keeps the first weight', () => {
      const parsed = parseChain('(a*2|b|a*5)', resolver);
      expect(tiersOf(parsed)).toEqual([['a*2', 'b']]);
      expect(warningsOf(parsed)).toEqual([["duplicate model 'a' at 7", 7]]);
    });

    it('leaves out an ambiguous raw id and names the candidates', () => {
      const parsed = parseChain('meta-llama/llama-3.3-70b-instruct,a', resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(warningsOf(parsed)).toEqual([
        ["ambiguous model 'meta-llama/llama-3.3-70b-instruct' at 0: matches 'b', 'c'; use a model key", 0],
      ]);
    });

    it('skips a group whose members were all left out, without an extra warning', () => {
      const parsed = parseChain('(x|y),a', resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(warningsOf(parsed)).toEqual([
        ["unknown model 'x' at 1", 1],
        ["unknown model 'y' at 3", 3],
      ]);
    });

    it('counts positions in UTF-16 units after non-ASCII text', () => {
      const parsed = parseChain('😀,zz', resolver);
      expect(warningsOf(parsed)).toEqual([
        ["unexpected '😀' at 0", 0],
        ["unknown model 'zz' at 3", 3],
      ]);
    });
  });

  describe('syntax problems', () => {
    it.each([
      ['empty tier in the middle', 'a,,b', [['a'], ['b']], [['empty tier at 2', 2]]],
      ['leading comma', ',a', [['a']], [['empty tier at 0', 0]]],
      ['trailing comma', 'a,', [['a']], [["trailing ',' at 1", 1]]],
      ['empty group', '(),a', [['a']], [['empty group at 0', 0]]],
      ['group of only pipes', '( | ),a', [['a']], [['empty group at 0', 0]]],
      ['unmatched )', 'a),b', [['a'], ['b']], [["unmatched ')' at 1", 1]]],
      ['unclosed ( closed by a comma', '(a|b,c', [['a', 'b'], ['c']], [["unclosed '(' at 0", 0]]],
      ['unclosed ( at the end', 'c,(a|b', [['c'], ['a', 'b']], [["unclosed '(' at 2", 2]]],
      [
        'nested group, flattened',
        '(a|(b|c))',
        [['a', 'b', 'c']],
        [['nested group at 3: its members join the outer group', 3]],
      ],
      [
        'stray | read as a group',
        'a|b,c',
        [['a', 'b'], ['c']],
        [["stray '|' outside a group at 1: read as a group", 1]],
      ],
      ['stray | at the start of a tier', '|a', [['a']], [["stray '|' outside a group at 0: ignored", 0]]],
      ['empty member between pipes', '(a||b)', [['a', 'b']], [['empty member in group at 3', 3]]],
      ['empty first member', '(|a)', [['a']], [['empty member in group at 1', 1]]],
      ['empty last member', '(a|)', [['a']], [['empty member in group at 3', 3]]],
      ['missing comma between names', 'a b', [['a'], ['b']], [["missing ',' before 'b' at 2", 2]]],
      ['missing comma between groups', '(a)(b)', [['a'], ['b']], [["missing ',' before '(' at 3", 3]]],
      ['missing pipe inside a group', '(a b)', [['a', 'b']], [["missing '|' before 'b' at 3", 3]]],
      ['missing weight', '(a*|b)', [['a', 'b']], [["missing weight after '*' at 2", 2]]],
      ['missing weight at the end', 'a*', [['a']], [["missing weight after '*' at 1", 1]]],
      ...['0', '-1', 'x', '1e3', '0.0001', '1000001', '2.5.1'].map((weight) => [
        `bad weight ${weight}`,
        `(a*${weight}|b)`,
        [['a', 'b']],
        [[`bad weight '${weight}' at 3: expected a number from 0.001 to 1000000`, 3]],
      ]),
      ['weight on a group', '(a|b)*2', [['a', 'b']], [["misplaced weight '*2' at 5", 5]]],
      ['star with nothing before it', '*,a', [['a']], [["misplaced '*' at 0", 0]]],
      ['junk on its own', 'a,#,b', [['a'], ['b']], [["unexpected '#' at 2", 2]]],
      ['junk inside a name', 'a!,b', [['b']], [["invalid character '!' in 'a!' at 1", 1]]],
      [
        'non-ASCII letter in a name',
        'caf\u00e9,a',
        [['a']],
        [["invalid character '\u00e9' in 'caf\u00e9' at 3", 3]],
      ],
    ])('recovers from %s: %j', (_name, chain, tiers, warnings) => {
      const parsed = parseChain(chain as string, resolver);
      expect(tiersOf(parsed)).toEqual(tiers);
      expect(warningsOf(parsed)).toEqual(warnings);
    });

    it('reports every problem of a badly broken chain in position order', () => {
      const parsed = parseChain(')(a||(b*0,c', resolver);
      expect(tiersOf(parsed)).toEqual([['a', 'b'], ['c']]);
      expect(warningsOf(parsed)).toEqual([
        ["unmatched ')' at 0", 0],
        ["unclosed '(' at 1", 1],
        ['empty member in group at 4', 4],
        ['nested group at 5: its members join the outer group', 5],
        ["bad weight '0' at 8: expected a number from 0.001 to 1000000", 8],
      ]);
    });
  });

  describe('guards', () => {
    it('escapes control and bidi characters in messages', () => {
      const parsed = parseChain('\u0000\u202e,a', resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(parsed.warnings[0]?.message).toBe("unexpected '\\u0000\\u202e' at 0");
    });

    it('shortens long names in messages', () => {
      const name = 'x'.repeat(500);
      const [warning] = parseChain(name, resolver).warnings;
      expect(warning?.message).toBe(`unknown model '${'x'.repeat(40)}…' at 0`);
    });

    it(`keeps the first ${MAX_CHAIN_WARNINGS} warnings and summarises the rest`, () => {
      const chain = ['a', ...Array.from({ length: 150 }, (_, i) => `u${i}`)].join(',');
      const parsed = parseChain(chain, resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(parsed.warnings).toHaveLength(MAX_CHAIN_WARNINGS + 1);
      expect(parsed.warnings.at(-1)?.message).toMatch(/^50 more problems not shown, the first at \d+$/);
    });

    it('survives a megabyte of nested, unbalanced punctuation', () => {
      const chain = `${'(('.repeat(200_000)}a${')|,*'.repeat(150_000)}`;
      const parsed = parseChain(chain, resolver);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(parsed.warnings).toHaveLength(MAX_CHAIN_WARNINGS + 1);
    });

    it('treats a resolver that throws as not knowing the name', () => {
      const throwing: NameResolver = {
        resolve: (name) => {
          if (name === 'boom') throw new Error('catalog down');
          return resolver.resolve(name);
        },
      };
      const parsed = parseChain('boom,a', throwing);
      expect(tiersOf(parsed)).toEqual([['a']]);
      expect(warningsOf(parsed)).toEqual([["unknown model 'boom' at 0", 0]]);
    });

    it('does not throw when called with something other than a string', () => {
      const parsed = parseChain(undefined as unknown as string, resolver);
      expect(parsed).toEqual({
        tiers: [],
        warnings: [{ message: 'chain is not a string at 0', position: 0 }],
      });
    });
  });
});
