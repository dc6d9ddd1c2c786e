import type { LedgerEntry, LedgerSink } from '../ledger/ledger-entry.js';
import type { ActualUse } from './admission.js';
import { toNano } from './limit-plan.js';

/**
 * Sums what each admitted request really used from its attempt ledger lines (every attempt,
 * fallbacks included) and reports the total once, when the request line arrives or the caller
 * closes it — so a stream settles when it ends, not when its headers go out.
 */
export interface SpendMeter {
  /** The ledger sink to give the gateway: it forwards every line to `inner` and meters them. */
  sink: LedgerSink;
  /** Starts metering `requestId`; `onEnd` is called exactly once with its use. */
  open(requestId: string, onEnd: (use: ActualUse) => void): void;
  /** Ends metering now if the request line has not done so (a request that ended without one). */
  close(requestId: string): void;
  /** Requests being metered: for tests and leak checks. */
  size(): number;
}

interface Metered {
  use: ActualUse;
  onEnd: (use: ActualUse) => void;
}

export function createSpendMeter(inner: LedgerSink): SpendMeter {
  // Request ids are the gateway's own (a caller's x-request-id never becomes one), so an id is one
  // request. The list per id only serves a job run twice at once (its lease ran out under a slow
  // run): both runs are the same job of the same owner, and the oldest takes the lines.
  const open = new Map<string, Metered[]>();

  const end = (requestId: string) => {
    const list = open.get(requestId);
    const first = list?.shift();
    if (list && list.length === 0) open.delete(requestId);
    first?.onEnd(first.use);
  };

  const meter = (entry: LedgerEntry) => {
    const current = open.get(entry.requestId)?.[0];
    if (!current) return;
    if (entry.type === 'request') return end(entry.requestId);
    const usage = entry.usage;
    if (usage) current.use.tokens += usage.inputTokens + usage.outputTokens;
    if (entry.costUsd !== undefined) current.use.costNano += toNano(entry.costUsd);
  };

  return {
    sink(entry) {
      inner(entry);
      meter(entry);
    },
    open(requestId, onEnd) {
      const list = open.get(requestId) ?? [];
      list.push({ use: { tokens: 0, costNano: 0 }, onEnd });
      open.set(requestId, list);
    },
    close: (requestId) => end(requestId),
    size: () => [...open.values()].reduce((n, l) => n + l.length, 0),
  };
}
