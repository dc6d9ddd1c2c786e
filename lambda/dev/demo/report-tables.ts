/**
 * The tables and text of `demo-report.html`: the setup (phases, providers, breaker policy in
 * words), the per-phase results, and the ledger check.
 */
import type { DemoScenario } from './demo-scenario.js';
import type { DemoStats, PhaseStats } from './demo-stats.js';
import type { LedgerCheck } from './ledger-check.js';
import { escapeHtml as e } from './report-svg.js';
import { formatMs, formatPercent } from './summary.js';

export function phaseRows(stats: DemoStats): string {
  const row = (p: PhaseStats, total: boolean) => {
    const cell = (metric: string, value: string) =>
      total ? `<td data-metric="${metric}">${value}</td>` : `<td>${value}</td>`;
    return (
      `<tr${total ? ' class="total"' : ''}><td title="${e(p.label)}">${e(p.name)}</td>` +
      cell('requests', String(p.requests)) +
      cell('successes', String(p.ok)) +
      `<td>${formatPercent(p.ok, p.requests - p.cut)}</td>` +
      p.byTier.map((n, i) => cell(`tier-${i + 1}`, String(n))).join('') +
      cell('attempts', String(p.attempts)) +
      cell('upstream-429', String(p.upstream429)) +
      cell('absorbed-429', String(p.absorbed429)) +
      `<td>${formatMs(p.latency?.p50)}</td><td>${formatMs(p.latency?.p95)}</td><td>${formatMs(p.latency?.p99)}</td></tr>`
    );
  };
  const tiers = stats.total.byTier.map((_, i) => `<th>served by tier ${i + 1}</th>`).join('');
  return (
    `<table><tr><th>phase</th><th>requests</th><th>ok</th><th>ok %</th>${tiers}<th>attempts</th>` +
    `<th>upstream 429s</th><th>429s absorbed</th><th>p50</th><th>p95</th><th>p99</th></tr>` +
    `${stats.phases.map((p) => row(p, false)).join('')}${row(stats.total, true)}</table>`
  );
}

/**
 * The ledger check: one row per total with the number each side counted, and a verdict computed
 * from those rows. A row the upstreams cannot see (requests) says so instead of a number; a row
 * that disagrees is marked and named in the (red) verdict.
 */
export function checkTable(check: LedgerCheck): string {
  const body = check.rows
    .map(
      (r) =>
        `<tr data-check="${r.key}"${r.agrees ? '' : ' class="mismatch"'}><td>${r.label}</td>` +
        `<td>${r.callers}</td><td>${r.ledger}</td>` +
        `<td>${r.upstreams ?? '<span title="upstreams receive attempts, not requests">not seen</span>'}</td></tr>`,
    )
    .join('');
  return (
    `<table><tr><th></th><th>callers saw (headers)</th><th>gateway ledger</th><th>upstreams answered</th></tr>${body}</table>` +
    `<p class="verdict ${check.matches && check.comparable ? 'ok' : 'bad'}">${checkVerdict(check)}</p>`
  );
}

/** The verdict in words, from the rows: which sides agree, or which rows disagree. */
export function checkVerdict(check: LedgerCheck): string {
  if (!check.comparable)
    return 'Not comparable: the run was cut, and the cut requests may be missing on one side.';
  const bad = check.rows.filter((r) => !r.agrees);
  if (bad.length > 0) {
    const named = bad
      .map(
        (r) =>
          `${r.label} (callers ${r.callers}, ledger ${r.ledger}${r.upstreams === undefined ? '' : `, upstreams ${r.upstreams}`})`,
      )
      .join('; ');
    return `The sides disagree on ${named}.`;
  }
  const three = check.rows.filter((r) => r.upstreams !== undefined).map((r) => r.label);
  const two = check.rows.filter((r) => r.upstreams === undefined).map((r) => r.label);
  return (
    `All three sides agree on ${three.join(', ')}` +
    (two.length > 0
      ? `; callers and ledger agree on ${two.join(', ')} (upstreams see attempts, not requests).`
      : '.')
  );
}

/** The probe schedule in words: `every 0.03 s up to 0.4 s, …, then every 6.0 s`. */
function probeScheduleText(b: DemoScenario['breaker']): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  if (b.probeSchedule.length === 0) return `a probe slot every ${s(b.probeIntervalMs)}`;
  const steps = b.probeSchedule.map((step) => `every ${s(step.everyMs)} up to ${s(step.untilMs)}`);
  return `probing ${steps.join(', ')}, then every ${s(b.openMs)} (a probe success frees the slot at once)`;
}

/** How the demo's breakers come back, in words. */
function recoveryText(b: DemoScenario['breaker']): string {
  if (b.recovery === 'window') return `and stay open ${(b.openMs / 1000).toFixed(1)} s`;
  const steps = b.rampSteps.map((s) => `${s} %`).join(', ');
  return (
    `and come back through recovery <code>ramp</code>: one probe at a time while open, ${probeScheduleText(b)}, ` +
    `${b.probeSuccesses} probe successes in a row start the ramp (${steps} of the traffic, ${(b.rampStepMs / 1000).toFixed(1)} s each)`
  );
}

export function setupSection(scenario: DemoScenario, stats: DemoStats): string {
  const phases = scenario.phases
    .map(
      (p) =>
        `<tr><td>${e(p.name)}</td><td>${(p.startMs / 1000).toFixed(1)}-${(p.endMs / 1000).toFixed(1)} s</td>` +
        `<td>${p.ratePerSecond}</td><td style="text-align:left">${e(p.label)}</td></tr>`,
    )
    .join('');
  const providers = stats.providers
    .map((p) => {
      const spec = scenario.providers.find((s) => s.modelKey === p.modelKey);
      const outage = spec?.outage
        ? `${(spec.outage.startMs / 1000).toFixed(1)}-${(spec.outage.endMs / 1000).toFixed(1)} s (${spec.outage.status})`
        : '-';
      return (
        `<tr><td>${e(p.provider)}</td><td>${e(p.modelKey)}</td><td>${p.tier}</td><td>${Math.round(p.quotaPerSecond)}</td>` +
        `<td>${spec?.latency.medianMs ?? '-'} ms</td><td>${outage}</td><td>${p.counts.served}</td>` +
        `<td>${p.counts.rateLimited}</td><td>${p.counts.outage}</td></tr>`
      );
    })
    .join('');
  const b = scenario.breaker;
  return (
    `<h2>Setup</h2><p>Chain of every pipeline: <code>${e(scenario.chain)}</code>. ` +
    `Pipelines: <code>${e(scenario.mainPipeline)}</code> (demo-day users) and ${scenario.cron.pipelines.length} cron pipelines ` +
    `(<code>${e(scenario.cron.pipelines[0] ?? '')}</code>...), each waking once with ${scenario.cron.requestsEach} requests. ` +
    `Provider time runs fast: one quota minute lasts ${scenario.minuteMs} ms. ` +
    `${scenario.declaredQuotas ? 'The gateway knows each quota (declared quotas)' : 'The quotas are not declared to the gateway (--no-declared-quotas)'}. ` +
    `Breakers open after ${b.consecutive429} consecutive 429s, ` +
    `or at ${Math.round(b.failureRate * 100)} % failures over at least ${b.minSamples} attempts in ${(b.windowMs / 1000).toFixed(1)} s, ` +
    `${recoveryText(b)}; up to ${scenario.maxAttempts} attempts per request. ` +
    `Callers, gateway and upstreams share one process; its event-loop delay was ${formatMs(stats.loopDelayP99Ms)} at p99, ${formatMs(stats.loopDelayMaxMs)} at most.</p>` +
    `<table><tr><th>phase</th><th>time</th><th>req/s</th><th style="text-align:left">what happens</th></tr>${phases}</table>` +
    `<table><tr><th>provider</th><th>model</th><th>tier</th><th>quota req/s</th><th>median latency</th><th>outage</th>` +
    `<th>answered 200</th><th>answered 429</th><th>outage errors</th></tr>${providers}</table>`
  );
}
