import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseChain } from '../../../lambda/core/dsl/parse-chain.js';
import { printChain } from '../../../lambda/core/dsl/print-chain.js';
import { FAKE_NAMES, fakeResolver } from '../../helpers/fake-resolver.js';

const resolver = fakeResolver;

// Pieces a chain is made of, plus the kinds of garbage real input contains, so that random strings
// hit the interesting paths (groups, weights, duplicates) far more often than fc.string alone.
const name = fc.constantFrom(...Object.keys(FAKE_NAMES), 'nosuchmodel');
const weightText = fc.constantFrom('3', '0', '-1', '2.5', '.5', 'x', '1e3', '0.0000001', '1000001', '');
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('(', ')', '|', ',', '*', ' ') },
  { weight: 6, arbitrary: name },
  { weight: 3, arbitrary: fc.tuple(name, weightText).map(([n, w]) => `${n}*${w}`) },
  { weight: 1, arbitrary: weightText },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\n', '\u202e', '\ud800', '😀', '\t') },
);
const dslLike = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));
const anyChain = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 200 }), dslLike);

const RUNS = { numRuns: 2000 };

describe('chain DSL properties', () => {
  it('never throws, whatever the string', () => {
    fc.assert(
      fc.property(anyChain, (chain) => {
        parseChain(chain, resolver);
      }),
      RUNS,
    );
  });

  it('never lists a model twice', () => {
    fc.assert(
      fc.property(anyChain, (chain) => {
        const keys = parseChain(chain, resolver).tiers.flatMap((t) => t.members.map((m) => m.key));
        expect(new Set(keys).size).toBe(keys.length);
      }),
      RUNS,
    );
  });

  it('gives only non-empty tiers of positive finite weights', () => {
    fc.assert(
      fc.property(anyChain, (chain) => {
        for (const tier of parseChain(chain, resolver).tiers) {
          expect(tier.members.length).toBeGreaterThan(0);
          for (const member of tier.members) {
            expect(Number.isFinite(member.weight) && member.weight > 0).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it('points every warning at a character of the chain and names that position', () => {
    fc.assert(
      fc.property(anyChain, (chain) => {
        for (const { message, position } of parseChain(chain, resolver).warnings) {
          expect(Number.isInteger(position)).toBe(true);
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThan(chain.length);
          expect(message).toContain(` at ${position}`);
        }
      }),
      RUNS,
    );
  });

  it('prints tiers that parse back, without warnings, to the same tiers', () => {
    fc.assert(
      fc.property(anyChain, (chain) => {
        const { tiers } = parseChain(chain, resolver);
        const again = parseChain(printChain(tiers), resolver);
        expect(again.warnings).toEqual([]);
        expect(again.tiers).toEqual(tiers);
      }),
      RUNS,
    );
  });
});
