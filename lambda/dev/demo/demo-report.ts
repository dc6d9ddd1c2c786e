/**
 * `demo-report.html`: one self-contained page (inline CSS and SVG, no script, no network) with
 * what the run did: requests per second by serving tier, upstream 429s absorbed, breaker open
 * intervals, latency percentiles, and the ledger check. The totals are also embedded as JSON
 * (`#demo-data`) so that a test or a script can read them back.
 */
import type { BreakerInterval } from './breaker-timeline.js';
import type { DemoScenario } from './demo-scenario.js';
import type { DemoStats, PhaseStats, TimeBin } from './demo-stats.js';
import type { LedgerCheck } from './ledger-check.js';
import { describeOutage, type OutageRecovery } from './outage-recovery.js';
import { escapeHtml as e, type GanttRow, ganttChart, type PhaseBand, stackedBarChart } from './report-svg.js';
import { checkTable, phaseRows, setupSection } from './report-tables.js';
import { formatMs } from './summary.js';

const TIER_COLORS = ['#2563eb', '#a855f7', '#14b8a6'];
const ERROR_COLOR = '#dc2626';
const ABSORBED_COLOR = '#f59e0b';
const OTHER_COLOR = '#94a3b8';
const QUOTA_COLOR = '#0f766e';
const REASON_COLORS: Record<string, string> = { consecutive_429: '#f97316', failure_rate: '#b91c1c' };
/** Colours of a `ramp` breaker's way back (docs/concepts.md#breaker-recovery). */
const RECOVERY_COLORS: Record<string, string> = { probing: '#facc15', ramp: '#22c55e' };

/** The numbers a reader (or a test) can take from `#demo-data`. */
export interface ReportData {
  totals: {
    requests: number;
    successes: number;
    errors: number;
    attempts: number;
    upstream429: number;
    absorbed429: number;
    breakerOpenings: number;
    /** Stretches of `ramp` breakers probing while open. */
    probingPhases: number;
    /** Ramps started, and those that ran to their end (the breaker closed). */
    ramps: number;
    rampsClosed: number;
  };
  ledger: LedgerCheck;
  phases: PhaseStats[];
  /** Each provider outage and how fast callers were back on the provider after it. */
  outages: OutageRecovery[];
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#0f172a;margin:0;background:#fff}
main{max-width:1040px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}
p.lede{color:#475569;margin:0 0 16px}
.verdict{border-radius:8px;padding:12px 16px;font-size:16px}
.ok{background:#ecfdf5;border:1px solid #10b981}.bad{background:#fef2f2;border:1px solid ${ERROR_COLOR}}
.verdict.bad{color:${ERROR_COLOR}}tr.mismatch td{color:${ERROR_COLOR};font-weight:600}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid #e2e8f0;text-align:right}td{white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f1f5f9;font-weight:600}
tr.total td{font-weight:600;border-top:2px solid #94a3b8}
.legend span{display:inline-block;margin-right:14px;font-size:13px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
svg text{font-family:system-ui,sans-serif}svg .tick{font-size:11px;fill:#475569}
svg .phase{font-size:11px;fill:#334155;font-weight:600}svg .row{font-size:10px;fill:#334155}
svg .axis{font-size:11px;fill:#475569}
.note{color:#475569;font-size:13px}code{background:#f1f5f9;padding:0 3px;border-radius:3px}
`;

const legend = (items: readonly [string, string][]) =>
  `<div class="legend">${items.map(([color, label]) => `<span><i style="background:${color}"></i>${e(label)}</span>`).join('')}</div>`;

function breakerRows(scenario: DemoScenario, intervals: readonly BreakerInterval[]): GanttRow[] {
  // The main pipeline's official models always get a row, opened or not; then every breaker that
  // opened, main pipeline first.
  const key = (pipeline: string, model: string) =>
    `${pipeline === scenario.mainPipeline ? 0 : 1}\u0000${pipeline}\u0000${model}`;
  const keys = new Set(
    scenario.providers.filter((p) => p.tier === 1).map((p) => key(scenario.mainPipeline, p.modelKey)),
  );
  const opened = new Set(intervals.map((o) => key(o.pipeline, o.model)));
  for (const k of [...opened].sort()) keys.add(k);
  return [...keys].map((k) => {
    const [, pipeline = '', model = ''] = k.split('\u0000');
    return {
      label: `${pipeline} / ${model}`,
      bars: intervals
        .filter((o) => o.pipeline === pipeline && o.model === model)
        .map((o) => ({
          startMs: o.startMs,
          endMs: o.endMs,
          color: (o.phase === 'open' ? REASON_COLORS[o.reason] : RECOVERY_COLORS[o.phase]) ?? '#64748b',
          title: `${pipeline} / ${model}: ${o.phase} ${(o.startMs / 1000).toFixed(1)}-${(o.endMs / 1000).toFixed(1)} s (${o.reason})`,
        })),
    };
  });
}

/** The three charts, on one time axis. */
function chartSections(scenario: DemoScenario, stats: DemoStats): string {
  const bands: PhaseBand[] = scenario.phases.map((p) => ({
    name: p.name,
    startMs: p.startMs,
    endMs: p.endMs,
  }));
  const frame = { binMs: stats.binMs, durationMs: stats.durationMs, phases: bands };
  const perSecond = (pick: (b: TimeBin) => number) => stats.bins.map((b) => pick(b) * (1000 / stats.binMs));
  const tierSeries = stats.total.byTier.map((_, i) => ({
    label: `tier ${i + 1}`,
    color: TIER_COLORS[i] ?? '#64748b',
    values: perSecond((b) => b.byTier[i] ?? 0),
  }));
  const errors = { label: 'errors seen by users', color: ERROR_COLOR, values: perSecond((b) => b.errors) };
  const quota = stats.providers.filter((p) => p.tier === 1).reduce((n, p) => n + p.quotaPerSecond, 0);
  const limits = [
    { label: '429s absorbed', color: ABSORBED_COLOR, values: perSecond((b) => b.absorbed429) },
    { label: '429s that reached the caller', color: ERROR_COLOR, values: perSecond((b) => b.reached429) },
    { label: 'other failures absorbed', color: OTHER_COLOR, values: perSecond((b) => b.absorbedOther) },
  ];
  const rows = breakerRows(scenario, [...stats.openings, ...stats.recovery]);
  const reasons: [string, string][] = Object.entries(REASON_COLORS).map(([reason, color]) => [
    color,
    `open: ${reason.replaceAll('_', ' ')}`,
  ]);
  for (const [phase, color] of Object.entries(RECOVERY_COLORS)) reasons.push([color, phase]);
  return `<h2>Requests per second by serving tier</h2>
<p class="note">Successful requests by the tier of the model that answered, by send time. Above the official tier's
quota (dashed) the overflow drains to the aggregator: with the quotas declared (the default) the gateway skips a
spent official route before it has to answer 429; without (<code>--no-declared-quotas</code>) the official
breakers open on 429s and the official tier is probed again when they close.</p>
${legend([...tierSeries, errors].map((s): [string, string] => [s.color, s.label]))}
${stackedBarChart({
  ...frame,
  label: 'requests per second by serving tier',
  unit: 'req/s',
  series: [...tierSeries, errors],
  guides: [{ value: quota, label: `official tier quota ${Math.round(quota)} req/s`, color: QUOTA_COLOR }],
})}
<h2>Upstream 429s absorbed</h2>
<p class="note">429s the upstreams answered, per second, on requests that still succeeded (absorbed by fallback) or
that failed anyway (reached the caller). Other upstream failures that fallback absorbed (the outage's 503s) in grey.</p>
${legend(limits.map((s): [string, string] => [s.color, s.label]))}
${stackedBarChart({ ...frame, label: 'upstream failures per second', unit: 'per second', height: 200, series: limits })}
<h2>Breaker timeline</h2>
<p class="note">One row per (pipeline, model) breaker: open, then probing (one probe request per probe slot while
it is still open), then the ramp (a growing share of the pipeline's traffic), then closed (no bar). A failure while
probing keeps it open; one during the ramp opens it again. Each pipeline keeps its own breakers, but a 429 cools
its account route (provider, upstream model) for every pipeline, so in the cron burst the pipelines skip a spent
quota instead of each learning about it with 429s of their own.</p>
${legend(reasons)}
${ganttChart({ ...frame, label: 'breaker timeline', rows, rowHeight: rows.length > 16 ? 11 : 16 })}`;
}

/** How fast callers were back on a provider after its outage (docs/concepts.md#the-probe-schedule). */
function outageSection(stats: DemoStats): string {
  if (stats.outages.length === 0) return '';
  const items = stats.outages.map((o) => `<li>${e(describeOutage(o))}</li>`).join('');
  return `<h2>Back after an outage</h2>
<p class="note">From the outage's end to the first request sent after it that the provider answered (a probe
carries a caller's request, so it counts), and the probes that went into the outage. The breakers' times are
scaled: 15 minutes of breaker time take <code>breaker.openMs</code> here.</p>
<ul>${items}</ul>`;
}

/** The whole report page. */
export function renderReport(input: {
  scenario: DemoScenario;
  stats: DemoStats;
  check: LedgerCheck;
  generatedAt: Date;
  /** Set when the run did not complete (stopped early, or answers still missing at the end). */
  stoppedAtMs?: number | undefined;
}): string {
  const { scenario, stats, check } = input;
  const { total } = stats;
  const data: ReportData = {
    totals: {
      requests: total.requests,
      successes: total.ok,
      errors: total.errors,
      attempts: total.attempts,
      upstream429: total.upstream429,
      absorbed429: total.absorbed429,
      breakerOpenings: stats.openings.length,
      probingPhases: stats.recovery.filter((r) => r.phase === 'probing').length,
      ramps: stats.recovery.filter((r) => r.phase === 'ramp').length,
      rampsClosed: stats.recovery.filter((r) => r.phase === 'ramp' && r.endMs === r.untilMs).length,
    },
    ledger: check,
    phases: stats.phases,
    outages: stats.outages,
  };
  const verdict =
    total.errors === 0
      ? `<p class="verdict ok">Users saw <b>no errors</b>: ${total.ok} of ${total.requests} requests succeeded; ` +
        `<b>${total.absorbed429}</b> upstream 429s were absorbed; breakers opened <b>${stats.openings.length}</b> times.</p>`
      : `<p class="verdict bad">Users saw <b>${total.errors}</b> errors in ${total.requests} requests; ` +
        `${total.absorbed429} upstream 429s were absorbed.</p>`;
  const incomplete =
    input.stoppedAtMs === undefined
      ? ''
      : `<p class="verdict bad">This run did not complete (ended at ${(input.stoppedAtMs / 1000).toFixed(1)} s, ` +
        `${stats.cut} requests without an answer): the numbers cover only part of the story.</p>`;
  const tierTable = stats.tiers
    .map(
      (t) =>
        `<tr><td>tier ${t.tier} (${e(t.models.join(', '))})</td><td>${t.served}</td>` +
        `<td>${formatMs(t.latency?.p50)}</td><td>${formatMs(t.latency?.p95)}</td><td>${formatMs(t.latency?.p99)}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Switchyard demo report</title><style>${CSS}</style></head>
<body><main>
<h1>Switchyard demo report</h1>
<p class="lede">${total.requests} requests on ${1 + scenario.cron.pipelines.length} pipelines over ${scenario.seconds} s,
through the real gateway over loopback HTTP; generated ${e(input.generatedAt.toISOString())}.</p>
${incomplete}${verdict}
${chartSections(scenario, stats)}
<h2>Phases</h2>
<p class="note">Latency percentiles are over successful requests, as the caller measured them (every attempt and
fallback included).</p>
${phaseRows(stats)}
${outageSection(stats)}
<h2>Latency by serving tier</h2>
<table><tr><th>tier</th><th>served</th><th>p50</th><th>p95</th><th>p99</th></tr>${tierTable}</table>
<h2>Ledger check</h2>
<p class="note">The numbers above come from the callers' side (status and <code>x-switchyard-*</code> headers). The
gateway's attempt ledger and the simulated upstreams counted on their own.</p>
${checkTable(check)}
${setupSection(scenario, stats)}
<script type="application/json" id="demo-data">${JSON.stringify(data).replaceAll('<', '\\u003c')}</script>
</main></body></html>
`;
}
