import type { WarningList } from './warning-list.js';

/** A `(` group being read: what it saw so far, for its separator and emptiness rules. */
export interface OpenGroup {
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

/** What ends a group: its `)`, a `,` (unclosed), or the end of the chain (unclosed). */
export type GroupEnd = 'paren' | 'comma' | 'end';

export function openGroup(pos: number): OpenGroup {
  return {
    openPos: pos,
    depth: 1,
    hadContent: false,
    lastSepPos: pos,
    sawPipe: false,
    memberSinceSep: false,
    emptySlots: [],
  };
}

/** A `(` inside a group: its members join the outer group, and it starts a new member slot. */
export function nestGroup(group: OpenGroup, pos: number, warnings: WarningList): void {
  warnings.add('nested group', pos, 'its members join the outer group');
  group.depth++;
  group.lastSepPos = pos;
  group.memberSinceSep = false;
}

/** A `|` inside a group: the slot it closes is empty when no member came since the last separator. */
export function pipeInGroup(group: OpenGroup, pos: number): void {
  if (!group.memberSinceSep) group.emptySlots.push(group.lastSepPos + 1);
  group.lastSepPos = pos;
  group.sawPipe = true;
  group.memberSinceSep = false;
}

/** Reports what a finished group leaves wrong: unclosed, empty, or empty member slots. */
export function reportClosedGroup(group: OpenGroup, by: GroupEnd, warnings: WarningList): void {
  if (by !== 'paren') warnings.add(`unclosed '('`, group.openPos);
  if (!group.hadContent) {
    warnings.add('empty group', group.openPos);
    return;
  }
  if (group.sawPipe && !group.memberSinceSep) group.emptySlots.push(group.lastSepPos + 1);
  for (const slot of group.emptySlots) {
    // At the end of the chain the slot may point one past the last character; clamp for readers.
    const position = by === 'end' ? Math.min(slot, group.lastSepPos) : slot;
    warnings.add('empty member in group', position);
  }
}
