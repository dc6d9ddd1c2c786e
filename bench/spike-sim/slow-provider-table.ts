/**
 * What `bench:spike-sim:slow` measures and how it prints it: per provider, share, latency and
 * in-flight peak without and with a bulkhead; per strategy, what the bulkhead cost the callers.
 */

/** What one provider saw in one run. */
export interface ProviderSeen {
  /** Latencies (ms) of the requests this provider answered, whole run. */
  latencies: number[];
  inFlight: number;
  /** Most calls open at once on the provider, whole run. */
  peak: number;
  /** Most calls open at once before the slowdown began. */
  healthyPeak: number;
  /** Attempts its bulkhead refused (`!<provider>:full` in a trail), whole run. */
  refusedFull: number;
}

/** Requests that arrived during the slowdown, by what became of them. */
export interface WindowCounts {
  requests: number;
  /** Requests that met at least one full route (and selected again without it). */
  metFull: number;
  /** Requests that found every route full: 503 `capacity_exhausted`. */
  capacityExhausted: number;
  /** Requests that failed otherwise (none expected: no provider fails in this scenario). */
  otherFailures: number;
}

/** One run: a selection strategy, with or without a bulkhead. */
export interface Outcome {
  strategy: string;
  /** `maxInFlight` on each provider; undefined: no bulkhead. */
  bulkhead: number | undefined;
  /** Latencies (ms) of the answered requests that arrived during the slowdown. */
  slowWindow: number[];
  seen: Map<string, ProviderSeen>;
  /** Answers per provider for requests that arrived during the slowdown. */
  windowShare: Map<string, number>;
  window: WindowCounts;
}

/** The runs of one strategy: without a bulkhead, then with each limit (the first is the provider table's). */
export interface StrategyRuns {
  without: Outcome;
  bounded: readonly [Outcome, ...Outcome[]];
}

/** The q-quantile in whole ms, or `—` when nothing was measured. */
export function quantile(values: readonly number[], q: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return value === undefined ? '—' : value.toFixed(0);
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
const count = (n: number) => n.toLocaleString('en-US');

/** Columns aligned: the first two to the left, the others to the right. */
function aligned(header: readonly string[], rows: readonly string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * Per strategy and provider: share of the slowdown's answers, p50/p95 of the requests it answered
 * and its in-flight peak, without the bulkhead and (`, bulkhead`) with it; then the attempts the
 * bulkhead refused. A last row per strategy has the slowdown's requests as a whole.
 */
export function providerTable(runs: readonly StrategyRuns[]): string {
  const header = [
    'strategy',
    'provider',
    'share (slowdown)',
    'p50 ms',
    'p95 ms',
    'in-flight peak',
    'share, bulkhead',
    'p95 ms, bulkhead',
    'in-flight peak, bulkhead',
    'refused full',
  ];
  const rows: string[][] = [];
  for (const {
    without,
    bounded: [bounded],
  } of runs) {
    for (const [key, s] of without.seen) {
      const b = bounded.seen.get(key) as ProviderSeen;
      rows.push([
        without.strategy,
        key,
        percent(without.windowShare.get(key) ?? 0, without.window.requests),
        quantile(s.latencies, 0.5),
        quantile(s.latencies, 0.95),
        String(s.peak),
        percent(bounded.windowShare.get(key) ?? 0, bounded.window.requests),
        quantile(b.latencies, 0.95),
        String(b.peak),
        count(b.refusedFull),
      ]);
    }
    rows.push([
      without.strategy,
      'all requests (slowdown)',
      percent(without.slowWindow.length, without.window.requests),
      quantile(without.slowWindow, 0.5),
      quantile(without.slowWindow, 0.95),
      '',
      percent(bounded.slowWindow.length, bounded.window.requests),
      quantile(bounded.slowWindow, 0.95),
      '',
      '',
    ]);
  }
  return aligned(header, rows);
}

/**
 * Per strategy and bulkhead limit (`none` first), what became of the requests that arrived during
 * the slowdown: how many met a full route, were answered by the next tier, or found every route
 * full (503 `capacity_exhausted`); p50/p95 of the answered ones; each provider's in-flight peak.
 */
export function costTable(runs: readonly StrategyRuns[], nextTier: string): string {
  const providers = [...(runs[0]?.without.seen.keys() ?? [])];
  const header = [
    'strategy',
    'maxInFlight',
    'met a full route',
    `answered by ${nextTier}`,
    '503 capacity_exhausted',
    'other failures',
    'p50 ms',
    'p95 ms',
    `in-flight peaks (${providers.join(' / ')})`,
  ];
  const rows = runs.flatMap(({ without, bounded }) =>
    [without, ...bounded].map((o) => [
      o.strategy,
      o.bulkhead === undefined ? 'none' : String(o.bulkhead),
      `${count(o.window.metFull)} (${percent(o.window.metFull, o.window.requests)})`,
      `${count(o.windowShare.get(nextTier) ?? 0)} (${percent(o.windowShare.get(nextTier) ?? 0, o.window.requests)})`,
      count(o.window.capacityExhausted),
      count(o.window.otherFailures),
      quantile(o.slowWindow, 0.5),
      quantile(o.slowWindow, 0.95),
      providers.map((key) => o.seen.get(key)?.peak ?? 0).join(' / '),
    ]),
  );
  return aligned(header, rows);
}
