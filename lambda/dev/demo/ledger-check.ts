/**
 * The demo's numbers come from the callers' side of the wire; the gateway's attempt ledger is
 * the other side. Counting both and comparing them shows that nothing was lost or invented.
 */
import type { LedgerEntry } from '../../core/ledger/ledger-entry.js';
import type { DemoStats } from './demo-stats.js';

/** The four totals both sides can count. */
export interface RunTotals {
  /** Requests (ledger: `request` lines). */
  requests: number;
  /** Successful requests (ledger: `reason: success`). */
  successes: number;
  /** Attempts (ledger: `attempt` lines; callers: `x-switchyard-attempts`, which counts the same). */
  attempts: number;
  /** Upstream answers with status 429 (ledger: attempts with `status: 429`). */
  upstream429: number;
}

/** The simulated upstreams' own counters, summed over every provider. */
export interface UpstreamTotals {
  /** Requests they received: every attempt the gateway sent (200s, 429s and outage errors). */
  attempts: number;
  /** Requests they answered 200: each successful request is exactly one of these. */
  successes: number;
  /** Requests they answered 429. */
  upstream429: number;
}

/**
 * One row of the ledger check: the same total as each side counted it. `upstreams` is absent
 * for a total the upstreams cannot see (they receive attempts, never the caller's request).
 */
export interface CheckRow {
  key: keyof RunTotals;
  /** Label in the report. */
  label: string;
  callers: number;
  ledger: number;
  upstreams?: number | undefined;
  /** True when every number the row has is the same. */
  agrees: boolean;
}

/** Callers' view against the ledger and the simulated upstreams' own counters. */
export interface LedgerCheck {
  callers: RunTotals;
  ledger: RunTotals;
  upstreams: UpstreamTotals;
  /** 429s the simulated providers answered (the same as `upstreams.upstream429`). */
  providers429: number;
  /** One row per total, in report order; the verdict is computed from these. */
  rows: CheckRow[];
  /** True when every row agrees. */
  matches: boolean;
  /** False when requests were cut at the end (a stopped run): their ledger lines may be missing. */
  comparable: boolean;
}

const ROW_LABELS: readonly [keyof RunTotals, string][] = [
  ['requests', 'requests'],
  ['successes', 'successful requests'],
  ['attempts', 'upstream attempts'],
  ['upstream429', 'upstream 429s'],
];

/** Builds the rows of the check from the three sides' totals; a row agrees when all its numbers are equal. */
export function checkRows(callers: RunTotals, ledger: RunTotals, upstreams: UpstreamTotals): CheckRow[] {
  return ROW_LABELS.map(([key, label]) => {
    const theirs = key === 'requests' ? undefined : upstreams[key];
    const numbers = [callers[key], ledger[key], ...(theirs === undefined ? [] : [theirs])];
    return {
      key,
      label,
      callers: callers[key],
      ledger: ledger[key],
      upstreams: theirs,
      agrees: numbers.every((n) => n === numbers[0]),
    };
  });
}

/** Totals of a ledger, the way any consumer of the JSON lines would count them. */
export function ledgerTotals(entries: readonly LedgerEntry[]): RunTotals {
  const totals: RunTotals = { requests: 0, successes: 0, attempts: 0, upstream429: 0 };
  for (const e of entries) {
    if (e.type === 'request') {
      totals.requests++;
      if (e.reason === 'success') totals.successes++;
    } else {
      totals.attempts++;
      if (e.status === 429) totals.upstream429++;
    }
  }
  return totals;
}

/** Sums what the simulated providers counted. */
export function upstreamTotals(stats: DemoStats): UpstreamTotals {
  const totals: UpstreamTotals = { attempts: 0, successes: 0, upstream429: 0 };
  for (const { counts } of stats.providers) {
    totals.attempts += counts.served + counts.rateLimited + counts.outage;
    totals.successes += counts.served;
    totals.upstream429 += counts.rateLimited;
  }
  return totals;
}

/** Compares the callers' totals with the ledger's and the upstreams' own counters. */
export function checkLedger(stats: DemoStats, entries: readonly LedgerEntry[]): LedgerCheck {
  const { total } = stats;
  const callers: RunTotals = {
    requests: total.requests,
    successes: total.ok,
    attempts: total.attempts,
    upstream429: total.upstream429,
  };
  const ledger = ledgerTotals(entries);
  const upstreams = upstreamTotals(stats);
  const rows = checkRows(callers, ledger, upstreams);
  return {
    callers,
    ledger,
    upstreams,
    providers429: upstreams.upstream429,
    rows,
    matches: rows.every((r) => r.agrees),
    comparable: stats.cut === 0,
  };
}
