import type { DslWarning } from './types.js';

/** Most warnings one parse reports before summarising the rest. Default 100. */
export const MAX_CHAIN_WARNINGS = 100;

/**
 * Collects parser warnings as `<problem> at <position>[: <detail>]`, so every message names its
 * position the same way. Past {@link MAX_CHAIN_WARNINGS} it only counts: a hostile or mangled
 * chain (a header full of commas) must not turn into a megabyte of log lines.
 */
export class WarningList {
  private readonly kept: DslWarning[] = [];
  private dropped = 0;
  private firstDroppedPos = Number.POSITIVE_INFINITY;

  /** Records one problem; `position` is a 0-based UTF-16 offset into the chain. */
  add(problem: string, position: number, detail?: string): void {
    if (this.kept.length >= MAX_CHAIN_WARNINGS) {
      this.dropped++;
      this.firstDroppedPos = Math.min(this.firstDroppedPos, position);
      return;
    }
    const message = `${problem} at ${position}${detail === undefined ? '' : `: ${detail}`}`;
    this.kept.push({ message, position });
  }

  /** The warnings in position order (stable), plus one summary warning when some were dropped. */
  finish(): DslWarning[] {
    // Most warnings arrive in order; a few (unclosed '(', empty members) are only known later.
    const sorted = [...this.kept].sort((a, b) => a.position - b.position);
    if (this.dropped > 0) {
      const position = this.firstDroppedPos;
      sorted.push({ message: `${this.dropped} more problems not shown, the first at ${position}`, position });
    }
    return sorted;
  }
}
