import { charAt, quoteText } from './quote-text.js';
import { resolveName } from './resolve-name.js';
import {
  type ChainToken,
  findInvalidNameChar,
  hasNameChar,
  parseWeight,
  tokenizeChain,
} from './tokenize-chain.js';
import type { NameResolver, ParsedChain, Tier, TierMember } from './types.js';
import { WarningList } from './warning-list.js';

/** Most candidates an ambiguity warning lists before `…`. Default 5. */
const MAX_CANDIDATES_SHOWN = 5;

interface OpenGroup {
  /** Offset of the `(` that opened it. */
  openPos: number;
  /** 1 for the group itself; nested `(` raise it so that only the outermost `)` closes. */
  depth: number;
  /** Any word, weight or junk seen inside: a group without any is reported as `empty group`. */
  hadContent: boolean;
  /** Offset of the last `(` or `|`; the empty member slot it leaves starts one character later. */
  lastSepPos: number;
  sawPipe: boolean;
  memberSinceSep: boolean;
  /** Deferred so that `(|)` gives one `empty group` warning instead of several empty members. */
  emptySlots: number[];
}

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

class ChainParser {
  private readonly tokens: ChainToken[];
  private readonly resolver: NameResolver;
  private readonly warnings = new WarningList();
  private readonly tiers: Tier[] = [];
  private readonly seen = new Set<string>();
  private index = 0;
  private members: TierMember[] = [];
  private tierItems = 0;
  private tierHadTokens = false;
  private joinNext = false;
  private lastCommaPos = -1;
  private group: OpenGroup | undefined;

  constructor(tokens: ChainToken[], resolver: NameResolver) {
    this.tokens = tokens;
    this.resolver = resolver;
  }

  run(): ParsedChain {
    for (let token = this.tokens[0]; token !== undefined; token = this.tokens[this.index]) {
      this.index++;
      switch (token.kind) {
        case 'word':
          this.onWord(token.text, token.pos);
          break;
        case '*':
          this.onMisplacedStar(token.pos);
          break;
        case '(':
          this.onOpen(token.pos);
          break;
        case ')':
          this.onClose(token.pos);
          break;
        case '|':
          this.onPipe(token.pos);
          break;
        case ',':
          if (this.group) this.closeGroup('comma');
          this.endTier(token.pos);
          break;
      }
    }
    if (this.group) this.closeGroup('end');
    this.endTier(undefined);
    return { tiers: this.tiers, warnings: this.warnings.finish() };
  }

  private onWord(text: string, pos: number): void {
    if (!hasNameChar(text)) {
      this.warnings.add(`unexpected ${quoteText(text)}`, pos);
      this.markContent();
      return;
    }
    this.startItem(text, pos);
    const weight = this.readWeight();
    const bad = findInvalidNameChar(text);
    if (bad >= 0) {
      const ch = charAt(text, bad);
      this.warnings.add(`invalid character ${quoteText(ch)} in ${quoteText(text)}`, pos + bad);
      return;
    }
    this.addMember(text, pos, weight);
  }

  /** A `*` the name branch did not consume has no member to weigh; its number goes with it. */
  private onMisplacedStar(pos: number): void {
    const next = this.tokens[this.index];
    if (next?.kind === 'word') {
      this.index++;
      this.warnings.add(`misplaced weight ${quoteText(`*${next.text}`)}`, pos);
    } else {
      this.warnings.add(`misplaced '*'`, pos);
    }
    this.markContent();
  }

  private onOpen(pos: number): void {
    const group = this.group;
    if (group) {
      this.warnings.add('nested group', pos, 'its members join the outer group');
      group.depth++;
      group.lastSepPos = pos;
      group.memberSinceSep = false;
      return;
    }
    this.startItem('(', pos);
    this.group = {
      openPos: pos,
      depth: 1,
      hadContent: false,
      lastSepPos: pos,
      sawPipe: false,
      memberSinceSep: false,
      emptySlots: [],
    };
  }

  private onClose(pos: number): void {
    const group = this.group;
    if (!group) {
      this.warnings.add(`unmatched ')'`, pos);
      this.tierHadTokens = true;
    } else if (group.depth > 1) {
      group.depth--;
    } else {
      this.closeGroup('paren');
    }
  }

  private onPipe(pos: number): void {
    const group = this.group;
    if (group) {
      if (!group.memberSinceSep) group.emptySlots.push(group.lastSepPos + 1);
      group.lastSepPos = pos;
      group.sawPipe = true;
      group.memberSinceSep = false;
      return;
    }
    const joins = this.tierItems > 0;
    this.warnings.add(`stray '|' outside a group`, pos, joins ? 'read as a group' : 'ignored');
    this.tierHadTokens = true;
    this.joinNext = joins;
  }

  /** Applies the separator rules before a name or a `(` that starts a new item. */
  private startItem(text: string, pos: number): void {
    const group = this.group;
    if (group) {
      if (group.memberSinceSep) this.warnings.add(`missing '|' before ${quoteText(text)}`, pos);
      group.memberSinceSep = true;
      group.hadContent = true;
      return;
    }
    if (this.joinNext) {
      this.joinNext = false;
    } else if (this.tierItems > 0) {
      this.warnings.add(`missing ',' before ${quoteText(text)}`, pos);
      this.endTier(undefined);
    }
    this.tierItems++;
    this.tierHadTokens = true;
  }

  /** Junk still counts as content, so `a,#,b` is one problem, not also an empty tier. */
  private markContent(): void {
    this.tierHadTokens = true;
    if (this.group) {
      this.group.hadContent = true;
      this.group.memberSinceSep = true;
    }
  }

  /** Consumes `*weight` after a name. Bad or missing weights fall back to 1: keep the model. */
  private readWeight(): number {
    const star = this.tokens[this.index];
    if (star?.kind !== '*') return 1;
    this.index++;
    const next = this.tokens[this.index];
    if (next?.kind !== 'word') {
      this.warnings.add(`missing weight after '*'`, star.pos);
      return 1;
    }
    this.index++;
    const weight = parseWeight(next.text);
    if (weight === undefined) {
      this.warnings.add(
        `bad weight ${quoteText(next.text)}`,
        next.pos,
        'expected a number from 0.001 to 1000000',
      );
      return 1;
    }
    return weight;
  }

  /** `by` is what ends the group: its `)`, a `,` (unclosed), or the end of the chain (unclosed). */
  private closeGroup(by: 'paren' | 'comma' | 'end'): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    if (by !== 'paren') this.warnings.add(`unclosed '('`, group.openPos);
    if (!group.hadContent) {
      this.warnings.add('empty group', group.openPos);
      return;
    }
    if (group.sawPipe && !group.memberSinceSep) group.emptySlots.push(group.lastSepPos + 1);
    for (const slot of group.emptySlots) {
      // At the end of the chain the slot may point one past the last character; clamp for readers.
      const position = by === 'end' ? Math.min(slot, group.lastSepPos) : slot;
      this.warnings.add('empty member in group', position);
    }
  }

  /** `commaPos` is the `,` that ends the tier; undefined for a missing `,` or the end of the chain. */
  private endTier(commaPos: number | undefined): void {
    if (this.members.length > 0) {
      this.tiers.push({ members: this.members });
    } else if (!this.tierHadTokens) {
      if (commaPos !== undefined) this.warnings.add('empty tier', commaPos);
      else if (this.lastCommaPos >= 0) this.warnings.add(`trailing ','`, this.lastCommaPos);
    }
    this.members = [];
    this.tierItems = 0;
    this.tierHadTokens = false;
    this.joinNext = false;
    if (commaPos !== undefined) this.lastCommaPos = commaPos;
  }

  private addMember(name: string, pos: number, weight: number): void {
    const resolution = resolveName(this.resolver, name);
    const quoted = quoteText(name);
    switch (resolution.kind) {
      case 'unknown':
        this.warnings.add(`unknown model ${quoted}`, pos);
        return;
      case 'ambiguous': {
        const shown = resolution.candidates.slice(0, MAX_CANDIDATES_SHOWN).map(quoteText);
        if (resolution.candidates.length > MAX_CANDIDATES_SHOWN) shown.push('…');
        this.warnings.add(`ambiguous model ${quoted}`, pos, `matches ${shown.join(', ')}; use a model key`);
        return;
      }
      case 'model': {
        const key = resolution.key;
        if (!this.seen.has(key)) {
          this.seen.add(key);
          this.members.push({ key, weight });
        } else if (key === name) {
          this.warnings.add(`duplicate model ${quoted}`, pos);
        } else {
          this.warnings.add(`duplicate model ${quoted}`, pos, `same as ${quoteText(key)}`);
        }
        return;
      }
    }
  }
}
