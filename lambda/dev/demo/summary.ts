/**
 * The end-of-run summary on the terminal: one row per phase, breaker openings, whether users saw
 * errors, and the ledger check. Fits in 80 columns.
 */
import type { BreakerInterval } from './breaker-timeline.js';
import type { DemoScenario } from './demo-scenario.js';
import type { DemoStats, PhaseStats } from './demo-stats.js';
import type { LedgerCheck } from './ledger-check.js';
import { describeOutage } from './outage-recovery.js';

/** Event-loop delay (p99, ms) above which the summary says the machine was busy. */
const BUSY_LOOP_MS = 100;
/** A single event-loop stall (ms) long enough to distort the run. */
const STALL_MS = 1_000;

/** `435ms`, or `-` when there is no sample. */
export function formatMs(ms: number | undefined): string {
  return ms === undefined ? '-' : `${Math.round(ms)}ms`;
}

/** Success rate with one decimal; `-` without requests. 99.95 % does not round up to 100.0. */
export function formatPercent(part: number, whole: number): string {
  if (whole === 0) return '-';
  const tenths = Math.floor((part / whole) * 1000) / 10;
  return tenths.toFixed(1);
}

/** Columns right-aligned except the first, two spaces apart. */
export function alignTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function phaseRow(p: PhaseStats): string[] {
  return [
    p.name,
    String(p.requests),
    formatPercent(p.ok, p.requests - p.cut),
    ...p.byTier.map(String),
    String(p.absorbed429),
    formatMs(p.latency?.p50),
    formatMs(p.latency?.p95),
    formatMs(p.latency?.p99),
  ];
}

/** The phase table: requests, success %, served by tier, 429s absorbed, latency percentiles. */
export function phaseTable(stats: DemoStats): string {
  const tiers = stats.total.byTier.map((_, i) => `TIER ${i + 1}`);
  const header = ['PHASE', 'REQUESTS', 'OK %', ...tiers, '429s ABSORBED', 'P50', 'P95', 'P99'];
  return alignTable(header, [...stats.phases.map(phaseRow), phaseRow(stats.total)]);
}

/**
 * `generate: 7 (gpt-mini 3, gemini-flash 4)` for the main pipeline; the cron pipelines are
 * counted together, since each of them opens the same way.
 */
export function describeOpenings(openings: readonly BreakerInterval[], scenario: DemoScenario): string[] {
  const main = openings.filter((o) => o.pipeline === scenario.mainPipeline);
  const byModel = new Map<string, number>();
  for (const o of main) byModel.set(o.model, (byModel.get(o.model) ?? 0) + 1);
  const models = [...byModel].map(([model, n]) => `${model} ${n}`).join(', ');
  const cron = openings.filter((o) => scenario.cron.pipelines.includes(o.pipeline));
  const cronPipelines = new Set(cron.map((o) => o.pipeline)).size;
  const reasons = new Map<string, number>();
  for (const o of openings) reasons.set(o.reason, (reasons.get(o.reason) ?? 0) + 1);
  return [
    `breaker openings: ${openings.length} (${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'})`,
    `  ${scenario.mainPipeline}: ${main.length}${models ? ` (${models})` : ''}`,
    `  cron-*: ${cron.length} in ${cronPipelines} of ${scenario.cron.pipelines.length} pipelines`,
  ];
}

/** `recovery: 31 probing phases, 12 ramps (10 ran to closed)`; nothing when no breaker ramps. */
export function describeRecovery(recovery: readonly BreakerInterval[]): string[] {
  if (recovery.length === 0) return [];
  const probing = recovery.filter((r) => r.phase === 'probing').length;
  const ramps = recovery.filter((r) => r.phase === 'ramp');
  const closed = ramps.filter((r) => r.endMs === r.untilMs).length;
  return [`recovery: ${probing} probing phases, ${ramps.length} ramps (${closed} ran to closed)`];
}

/** The whole summary, ready to print. */
export function formatSummary(input: {
  scenario: DemoScenario;
  stats: DemoStats;
  check: LedgerCheck;
  elapsedMs: number;
  reportPath: string;
}): string {
  const { scenario, stats, check } = input;
  const { total } = stats;
  const pipelines = 1 + scenario.cron.pipelines.length;
  const lines = [
    '',
    `Switchyard demo: ${total.requests} requests on ${pipelines} pipelines in ` +
      `${(input.elapsedMs / 1000).toFixed(1)} s`,
    '',
    phaseTable(stats),
    '',
    ...describeOpenings(stats.openings, scenario),
    ...describeRecovery(stats.recovery),
    ...stats.outages.map(describeOutage),
    total.errors === 0
      ? `users saw errors: none of ${total.requests} requests; ${total.absorbed429} upstream 429s absorbed`
      : `users saw errors: ${total.errors} of ${total.requests} requests`,
    scenario.declaredQuotas
      ? 'quotas: declared to the gateway, which skips a spent route (!<model>:quota) before its 429'
      : 'quotas: not declared (--no-declared-quotas): the gateway learns them from 429s',
  ];
  if (total.cut > 0) lines.push(`stopped early: ${total.cut} requests were still waiting and were cut`);
  if (stats.shed > 0) lines.push(`warning: ${stats.shed} requests not sent (this machine fell behind)`);
  if (stats.loopDelayP99Ms > BUSY_LOOP_MS || stats.loopDelayMaxMs > STALL_MS) {
    lines.push(
      `note: this machine was busy (event-loop delay p99 ${formatMs(stats.loopDelayP99Ms)}, ` +
        `max ${formatMs(stats.loopDelayMaxMs)}); latencies include it`,
    );
  }
  const { ledger } = check;
  lines.push(
    `ledger: ${ledger.requests} requests, ${ledger.attempts} attempts, ${ledger.upstream429} upstream 429s` +
      ` (${check.matches ? 'all match' : check.comparable ? 'MISMATCH' : 'not compared: the run was cut'})`,
  );
  if (!check.matches && check.comparable) {
    for (const r of check.rows.filter((row) => !row.agrees)) {
      const theirs = r.upstreams === undefined ? '' : `, upstreams ${r.upstreams}`;
      lines.push(`  ${r.label} disagree: callers ${r.callers}, ledger ${r.ledger}${theirs}`);
    }
  }
  lines.push(`report: ${input.reportPath}`, '');
  return lines.join('\n');
}
