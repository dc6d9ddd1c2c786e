/**
 * The overhead bench's tables: plain text, aligned, ready to paste into the README.
 */
import { type LoadRun, quantile, type Samples } from './measure.js';

/** Left-aligned first column, right-aligned numbers. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

const ms = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(3)}` : '–';

/** One row per target: median, p99, and median added over the first target (direct). */
export function oneAtATimeTable(
  names: readonly string[],
  samples: ReadonlyMap<string, Samples>,
  skipped: ReadonlyMap<string, string>,
): { text: string; added: Map<string, number> } {
  const direct = quantile(
    (samples.get(names[0] ?? '') ?? []).map((x) => x.ms),
    0.5,
  );
  const added = new Map<string, number>();
  const rows = names.map((name) => {
    const why = skipped.get(name);
    if (why !== undefined) return [name, '–', '–', '–', '–'];
    const s = (samples.get(name) ?? []).map((x) => x.ms);
    const median = quantile(s, 0.5);
    added.set(name, median - direct);
    return [
      name,
      String(s.length),
      ms(median),
      ms(quantile(s, 0.99)),
      name === names[0] ? '–' : signed(median - direct),
    ];
  });
  return {
    text: table(['target', 'requests', 'median ms', 'p99 ms', 'added ms (median)'], rows),
    added,
  };
}

/** Several autocannon runs of one target, merged. */
export interface LoadSummary {
  perSecond: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  /** CPU time of the target's own process per answered request, in µs; NaN when unknown. */
  cpuPerRequest: number;
}

/** Merges the rounds of one target: throughput over the total time, percentiles over every answer. */
export function summarise(runs: readonly LoadRun[]): LoadSummary {
  const ok = runs.reduce((n, r) => n + r.ok, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const latencies = runs.flatMap((r) => r.latencies);
  const cpu = runs.every((r) => r.cpuMicros !== undefined)
    ? runs.reduce((n, r) => n + (r.cpuMicros ?? 0), 0)
    : Number.NaN;
  return {
    cpuPerRequest: ok > 0 ? cpu / ok : Number.NaN,
    perSecond: seconds > 0 ? ok / seconds : Number.NaN,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    ok,
    failed: runs.reduce((n, r) => n + r.failed, 0),
  };
}

/** One row per target: requests/s, its ratio to direct and to the bare proxy, p50, p99, failures. */
export function underLoadTable(
  names: readonly string[],
  summaries: ReadonlyMap<string, LoadSummary>,
  bareName: string,
): string {
  const direct = summaries.get(names[0] ?? '')?.perSecond ?? Number.NaN;
  const bare = summaries.get(bareName)?.perSecond ?? Number.NaN;
  const rows = names.map((name) => {
    const s = summaries.get(name);
    if (!s) return [name, '–', '–', '–', '–', '–', '–', '–'];
    return [
      name,
      s.perSecond.toFixed(0),
      ratio(s.perSecond / direct),
      ratio(s.perSecond / bare),
      ms(s.p50, 2),
      ms(s.p99, 2),
      Number.isFinite(s.cpuPerRequest) ? s.cpuPerRequest.toFixed(0) : '–',
      String(s.failed),
    ];
  });
  return table(
    ['target', 'req/s', '× direct', '× bare proxy', 'p50 ms', 'p99 ms', 'CPU µs/req', 'failed'],
    rows,
  );
}

/**
 * The streaming table: one request at a time, the median time to first byte (and what each target
 * adds to direct's), the median whole answer, and how fast one stream's events arrive; then, under
 * load, streams answered per second and the target's CPU per stream.
 */
export function streamingTable(
  names: readonly string[],
  samples: ReadonlyMap<string, Samples>,
  summaries: ReadonlyMap<string, LoadSummary>,
): { text: string; addedTtfb: Map<string, number> } {
  const ttfbOf = (name: string) =>
    quantile(
      (samples.get(name) ?? []).map((x) => x.ttfbMs),
      0.5,
    );
  const direct = ttfbOf(names[0] ?? '');
  const addedTtfb = new Map<string, number>();
  const rows = names.map((name) => {
    const s = samples.get(name) ?? [];
    const load = summaries.get(name);
    if (s.length === 0 && !load) return [name, '–', '–', '–', '–', '–', '–'];
    const ttfb = ttfbOf(name);
    addedTtfb.set(name, ttfb - direct);
    const events = s.reduce((n, x) => n + x.events, 0);
    const seconds = s.reduce((n, x) => n + x.ms, 0) / 1000;
    return [
      name,
      ms(ttfb),
      name === names[0] ? '–' : signed(ttfb - direct),
      ms(
        quantile(
          s.map((x) => x.ms),
          0.5,
        ),
      ),
      seconds > 0 ? (events / seconds).toFixed(0) : '–',
      load ? load.perSecond.toFixed(0) : '–',
      load && Number.isFinite(load.cpuPerRequest) ? load.cpuPerRequest.toFixed(0) : '–',
    ];
  });
  return {
    text: table(
      [
        'target',
        'TTFB ms',
        'added TTFB',
        'whole ms',
        'chunks/s (one stream)',
        'streams/s (load)',
        'CPU µs/stream',
      ],
      rows,
    ),
    addedTtfb,
  };
}
