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

/** Callers' view against the ledger, and the simulated upstreams' own count of 429s. */
export interface LedgerCheck {
  callers: RunTotals;
  ledger: RunTotals;
  /** 429s the simulated providers answered. */
  providers429: number;
  /** True when all three sides agree on every total. */
  matches: boolean;
  /** False when requests were cut at the end (a stopped run): their ledger lines may be missing. */
  comparable: boolean;
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

/** Compares the callers' totals with the ledger's and the providers' 429 counts. */
export function checkLedger(stats: DemoStats, entries: readonly LedgerEntry[]): LedgerCheck {
  const { total } = stats;
  const callers: RunTotals = {
    requests: total.requests,
    successes: total.ok,
    attempts: total.attempts,
    upstream429: total.upstream429,
  };
  const ledger = ledgerTotals(entries);
  const providers429 = stats.providers.reduce((n, p) => n + p.counts.rateLimited, 0);
  const matches =
    callers.requests === ledger.requests &&
    callers.successes === ledger.successes &&
    callers.attempts === ledger.attempts &&
    callers.upstream429 === ledger.upstream429 &&
    providers429 === ledger.upstream429;
  return { callers, ledger, providers429, matches, comparable: stats.cut === 0 };
}
