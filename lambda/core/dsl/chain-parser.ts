import {
  type GroupEnd,
  nestGroup,
  type OpenGroup,
  openGroup,
  pipeInGroup,
  reportClosedGroup,
} from './open-group.js';
import { charAt, quoteText } from './quote-text.js';
import { resolveMember } from './resolve-member.js';
import { type ChainToken, findInvalidNameChar, hasNameChar, parseWeight } from './tokenize-chain.js';
import type { NameResolver, ParsedChain, Tier, TierMember } from './types.js';
import { WarningList } from './warning-list.js';

/** Reads a token stream into tiers with recovery; {@link parseChain} documents the rules. */
export class ChainParser {
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
    if (this.group) {
      nestGroup(this.group, pos, this.warnings);
      return;
    }
    this.startItem('(', pos);
    this.group = openGroup(pos);
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
    if (this.group) {
      pipeInGroup(this.group, pos);
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

  private closeGroup(by: GroupEnd): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    reportClosedGroup(group, by, this.warnings);
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
    const member = resolveMember(this.resolver, this.seen, { name, pos, weight }, this.warnings);
    if (member) this.members.push(member);
  }
}
