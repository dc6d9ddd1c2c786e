import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type {
  AttemptLedgerEntry,
  LedgerEntry,
  RequestLedgerEntry,
} from '../../lambda/core/ledger/ledger-entry.js';
import type { ReportData } from '../../lambda/dev/demo/demo-report.js';
import { runDemo } from '../../lambda/dev/demo/run-demo.js';
import { runCliCaptured } from '../helpers/cli-harness.js';

/** The JSON the report embeds for machines. */
function reportData(html: string): ReportData {
  const match = html.match(/<script type="application\/json" id="demo-data">(.*?)<\/script>/s);
  if (!match?.[1]) throw new Error('the report embeds no #demo-data');
  return JSON.parse(match[1]) as ReportData;
}

/** A cell of the visible totals row. */
function totalCell(html: string, metric: string): string | undefined {
  return html.match(new RegExp(`<td data-metric="${metric}">([^<]*)</td>`))?.[1];
}

/** A short demo run (6 s) with everything a test reads of it. */
async function shortRun(declareQuotas: boolean | undefined) {
  const reportPath = join(mkdtempSync(join(tmpdir(), 'switchyard-demo-')), 'out', 'demo-report.html');
  const ledger: LedgerEntry[] = [];
  let output = '';
  let status: Promise<Response> | undefined;
  const result = await runDemo({
    seconds: 6,
    reportPath,
    view: 'lines',
    write: (text) => {
      output += text;
      // The printed URL answers while the demo runs.
      const url = /^status page: (http:\/\/127\.0\.0\.1:\d+)\/status /m.exec(text)?.[1];
      if (url) status ??= fetch(`${url}/v1/status`);
    },
    ledgerTap: (entry) => ledger.push(entry),
    ...(declareQuotas === undefined ? {} : { declareQuotas }),
  });
  const requests = ledger.filter((e): e is RequestLedgerEntry => e.type === 'request');
  const attempts = ledger.filter((e): e is AttemptLedgerEntry => e.type === 'attempt');
  const succeeded = new Set(requests.filter((r) => r.reason === 'success').map((r) => r.requestId));
  const upstream429 = attempts.filter((a) => a.status === 429);
  const expected = {
    requests: requests.length,
    successes: succeeded.size,
    errors: requests.length - succeeded.size,
    attempts: attempts.length,
    upstream429: upstream429.length,
    absorbed429: upstream429.filter((a) => succeeded.has(a.requestId)).length,
  };
  // Routes skipped because their declared quota was spent, as the attempts' ledger lines list them.
  const quotaSkips = attempts.flatMap((a) => a.skipped ?? []).filter((s) => s.reason === 'quota').length;
  const servedByAggregator = requests.filter((r) => r.reason === 'success' && r.model === 'llama-or').length;
  return {
    result,
    reportPath,
    html: readFileSync(reportPath, 'utf8'),
    output,
    status,
    attempts,
    expected,
    quotaSkips,
    servedByAggregator,
  };
}

/** Upstream 429s of the default run, for the run without declarations to compare with. */
let declared429: number | undefined;

describe('switchyard demo', () => {
  it('runs a short demo whose report is self-contained and matches the gateway ledger; declared quotas are skipped, not hit', async () => {
    const run = await shortRun(undefined);
    const { result, html, output, expected } = run;
    expect(result.completed).toBe(true);
    expect(result.scenario.declaredQuotas).toBe(true);
    if (!run.status) throw new Error('the demo printed no status page URL');
    const live = await run.status;
    expect(live.status).toBe(200);
    const snapshot = (await live.json()) as { pipelines: { name: string }[] };
    expect(snapshot.pipelines.map((p) => p.name)).toContain(result.scenario.mainPipeline);

    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=/i);
    expect(html).not.toMatch(/<link\b|<img\b|<iframe\b|@import|url\(/i);
    expect(html.match(/<svg /g)?.length).toBe(3);

    const data = reportData(html);
    expect(data.totals).toMatchObject(expected);
    expect(data.ledger.matches).toBe(true);
    // The ledger check shows each side's number in every row that claims three sides.
    const checkRow = (key: string) =>
      [
        ...(html.match(new RegExp(`<tr data-check="${key}">(.*?)</tr>`))?.[1] ?? '').matchAll(
          /<td>(.*?)<\/td>/g,
        ),
      ].map((m) => m[1]);
    expect(checkRow('successes').slice(1)).toEqual(Array(3).fill(String(expected.successes)));
    expect(checkRow('attempts').slice(1)).toEqual(Array(3).fill(String(expected.attempts)));
    expect(checkRow('upstream429').slice(1)).toEqual(Array(3).fill(String(expected.upstream429)));
    expect(html).toContain(
      '<p class="verdict ok">All three sides agree on successful requests, upstream attempts, upstream 429s;',
    );
    expect(totalCell(html, 'requests')).toBe(String(expected.requests));
    expect(totalCell(html, 'successes')).toBe(String(expected.successes));
    expect(totalCell(html, 'attempts')).toBe(String(expected.attempts));
    expect(totalCell(html, 'upstream-429')).toBe(String(expected.upstream429));
    expect(totalCell(html, 'absorbed-429')).toBe(String(expected.absorbed429));
    expect(totalCell(html, 'tier-2')).toBe(String(run.servedByAggregator));
    // Back after the outage: the calls into it, counted from the ledger, are what the upstream answered 503.
    const outageCalls = run.attempts.filter((a) => a.model === 'gemini-flash' && a.status === 503);
    expect(data.outages).toEqual([
      expect.objectContaining({
        modelKey: 'gemini-flash',
        callsIntoOutage: outageCalls.length,
        probesIntoOutage: outageCalls.filter((a) => a.recovery === 'probe').length,
      }),
    ]);
    expect(outageCalls.length).toBe(
      result.stats.providers.find((p) => p.modelKey === 'gemini-flash')?.counts.outage,
    );
    expect(html).toContain('<h2>Back after an outage</h2>');
    expect(output).toMatch(/gemini-flash outage \d+\.\d–\d+\.\d s/);

    // The story happened: the spike and the burst overflowed the official tier, the gateway
    // skipped the spent official routes before their providers said 429, the aggregator took the
    // overflow, and no user saw an error.
    expect(run.quotaSkips).toBeGreaterThan(0);
    expect(run.servedByAggregator).toBeGreaterThan(0);
    expect(expected.errors).toBe(0);
    expect(data.phases.map((p) => p.name)).toEqual(['baseline', 'spike', 'recovery', 'cron']);
    declared429 = expected.upstream429;

    expect(output).toContain('-- spike: ');
    expect(output).toMatch(/^PHASE +REQUESTS +OK %/m);
    expect(output).toMatch(/^quotas: declared to the gateway/m);
    expect(output).toContain(`report: ${run.reportPath}`);
    expect(output).toContain('(all match)');
  }, 30_000);

  it('with the quotas undeclared, the same spike meets more 429s and the breakers tell it: open → probe → ramp', async () => {
    const run = await shortRun(false);
    const { result, html, output, expected } = run;
    expect(result.completed).toBe(true);
    const data = reportData(html);
    expect(data.totals).toMatchObject(expected);
    expect(data.ledger.matches).toBe(true);
    expect(run.quotaSkips).toBe(0);
    expect(expected.upstream429).toBeGreaterThan(0);
    // The same traffic with the quotas declared (the test before) met fewer 429s.
    if (declared429 !== undefined) expect(declared429).toBeLessThan(expected.upstream429);
    expect(data.totals.breakerOpenings).toBeGreaterThan(0);
    expect(run.servedByAggregator).toBeGreaterThan(0);
    expect(expected.errors).toBe(0);

    // The official tier comes back through recovery ramp: some breaker went open → probing → ramp
    // and its ramp ran to its end (closed), all in the report's breaker timeline.
    expect(data.totals.probingPhases).toBeGreaterThan(0);
    expect(data.totals.rampsClosed).toBeGreaterThan(0);
    const bars = [...html.matchAll(/<title>([^<]+?): (open|probing|ramp) ([\d.]+)-([\d.]+) s/g)].map((m) => ({
      breaker: m[1],
      phase: m[2],
      start: m[3],
      end: m[4],
    }));
    const story = bars.some(
      (open) =>
        open.phase === 'open' &&
        bars.some(
          (probing) =>
            probing.breaker === open.breaker &&
            probing.phase === 'probing' &&
            probing.start === open.end &&
            bars.some((r) => r.breaker === open.breaker && r.phase === 'ramp' && r.start === probing.end),
        ),
    );
    expect(story).toBe(true);
    expect(output).toMatch(/^recovery: \d+ probing phases, \d+ ramps \(\d+ ran to closed\)$/m);
    expect(output).toMatch(/^quotas: not declared \(--no-declared-quotas\)/m);
    expect(html).toContain('The quotas are not declared to the gateway (--no-declared-quotas).');
  }, 30_000);

  it.each([
    [['--seconds', 'soon'], '--seconds must be a number'],
    [['--seconds', '1'], '--seconds must be at least 3'],
    [['--report', ' '], '--report must name a file'],
    [['extra'], 'usage: switchyard demo'],
  ])('rejects %j with status 2 and one line', async (args, message) => {
    const { code, stdout, stderr } = await runCliCaptured(['demo', ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});
