import { ChainParser } from './chain-parser.js';
import { tokenizeChain } from './tokenize-chain.js';
import type { NameResolver, ParsedChain } from './types.js';

/**
 * Parses a chain (docs/design.md#the-chain-dsl) and resolves every name through `resolver`.
 *
 * `A,B,C` are priority tiers in order, `(A|B)` is one load-balanced tier, `A*3` weights a member
 * of a group (default weight 1). A weight is a plain decimal from 0.001 to 1000000 (`3`, `2.5`,
 * `.5`); on a bare name it is accepted without a warning and kept, although a tier of one member
 * has nothing to balance against. Names may use ASCII letters, digits and `-_.:/@`.
 *
 * Never throws, on any input, and never drops a model silently: every problem becomes a
 * `DslWarning` whose message names the offending text and ends its first clause with
 * `at <position>` (a 0-based UTF-16 offset into `chain`). Warnings are sorted by position; past
 * 100 of them the rest are summarised in one last warning. Recovery keeps as much intent as it can:
 *
 * - duplicate model (compared by resolved key, so an alias of an earlier model counts): the later
 *   one is dropped, the first occurrence keeps its place and weight;
 * - unknown name, ambiguous name (the warning lists the candidates), name with characters outside
 *   the name alphabet: left out; a group whose members are all left out is skipped;
 * - empty tier (`a,,b`, `,a`, `a,`) and empty group (`()`): skipped;
 * - empty member in a group (`(a||b)`, `(|a)`, `(a|)`): skipped, the other members stay;
 * - unmatched `)`: ignored;
 * - unclosed `(`: closed at the next `,` or at the end of the chain;
 * - nested `(` inside a group: flattened, `(a|(b|c))` is `(a|b|c)`;
 * - stray `|` outside a group: joins its neighbours into one tier, `a|b` is read as `(a|b)`;
 * - two items without a separator (`a b`, `(a|b)(c)`, `(a b)`): read as if `,` (or `|` inside a
 *   group) were there;
 * - bad or missing weight (`A*`, `A*0`, `A*-1`, `A*x`): the member is kept with weight 1;
 * - `*` not directly after a name (`(a|b)*2`): ignored together with the weight that follows;
 * - junk characters on their own (`a,#,b`): ignored;
 * - a resolver that throws or answers nonsense: the name is reported as unknown and left out.
 *
 * An empty or all-whitespace chain gives no tiers and no warning; the caller decides what a chain
 * that resolves to no model means (docs/design.md#chain-sources). Pure: the only outside call is `resolver.resolve`.
 */
export function parseChain(chain: string, resolver: NameResolver): ParsedChain {
  if (typeof chain !== 'string') {
    // The signature says string, but chains arrive from env, headers and config at runtime.
    return { tiers: [], warnings: [{ message: 'chain is not a string at 0', position: 0 }] };
  }
  return new ChainParser(tokenizeChain(chain), resolver).run();
}
