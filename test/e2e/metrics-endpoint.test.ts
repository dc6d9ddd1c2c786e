import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../lambda/core/metrics/prometheus-text.js';
import {
  bearer,
  type GatewayHarness,
  HELLO,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text-parser.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const withMetrics = (config: Record<string, unknown>) => {
  config.metrics = { enabled: true };
};

async function scrape(headers: Record<string, string> = {}) {
  const res = await fetch(`${h.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
  return parsePrometheusText(await res.text());
}

/** Counts the ledger lines that match, the way a counter of the same labels should. */
const count = <T>(lines: T[], match: (line: T) => boolean) => lines.filter(match).length;

describe('GET /metrics', () => {
  it('answers 404 unless the config enables it', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    expect((await fetch(`${h.url}/metrics`)).status).toBe(404);
  });

  it('after a scripted run against the fakes, every counter equals what the ledger holds', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b,c' }, q: { chain: 'c' }, storm: { chain: 'b', maxAttempts: 1 } },
      { configure: withMetrics },
    );
    h.openai.script('model-a', [{ status: 429 }, { status: 429 }, { status: 503 }]);
    h.openai.script('model-b', [{ status: 500 }, { reset: true }]);
    h.openai.script('model-c', [{ status: 400 }]);
    for (let i = 0; i < 6; i++) await h.post({ model: 'p', ...HELLO });
    await h.post({ model: 'q', ...HELLO });
    await h.post({ model: 'p', stream: true, stream_options: { include_usage: true }, ...HELLO });
    await h.post({ model: 'a,c', ...HELLO });
    // A 429 storm on b for pipeline storm: two in a row open its breaker (fail-open still sends the second).
    h.openai.script('model-b', [{ status: 429 }, { status: 429 }]);
    await h.post({ model: 'storm', ...HELLO });
    await h.post({ model: 'storm', ...HELLO });
    await waitFor(() => h.requests().length === 11);

    const f = await scrape();
    const attempts = h.attempts() as AttemptLedgerEntry[];
    const requests = h.requests() as RequestLedgerEntry[];
    const outcomes = new Set(
      attempts.map((a) => `${a.pipeline}|${a.model}|${a.provider}|${a.action}|${a.outcome}`),
    );
    expect(outcomes.size).toBeGreaterThan(4);
    for (const key of outcomes) {
      const [pipeline = '', model, provider, action, outcome] = key.split('|');
      const label = pipeline.startsWith('chain:') ? '(ad-hoc)' : pipeline;
      const labels = { pipeline: label, model, provider, action, outcome } as Record<string, string>;
      const inLedger = count(
        attempts,
        (a) => `${a.pipeline}|${a.model}|${a.provider}|${a.action}|${a.outcome}` === key,
      );
      expect(sampleValue(f, 'switchyard_attempts_total', labels), key).toBe(inLedger);
    }
    for (const reason of new Set(requests.map((r) => r.reason))) {
      const inLedger = count(requests, (r) => r.reason === reason && !r.pipeline.startsWith('chain:'));
      expect(
        sampleValue(f, 'switchyard_requests_total', { reason }) -
          sampleValue(f, 'switchyard_requests_total', { pipeline: '(ad-hoc)', reason }),
        reason,
      ).toBe(inLedger);
    }
    expect(sampleValue(f, 'switchyard_requests_total', {})).toBe(requests.length);
    expect(sampleValue(f, 'switchyard_attempts_total', {})).toBe(attempts.length);
    expect(sampleValue(f, 'switchyard_attempt_duration_seconds_count', {})).toBe(attempts.length);
    expect(sampleValue(f, 'switchyard_request_duration_seconds_count', {})).toBe(requests.length);
    const ledgerLatency = requests.reduce((s, r) => s + r.latencyMs, 0) / 1000;
    expect(sampleValue(f, 'switchyard_request_duration_seconds_sum', {})).toBeCloseTo(ledgerLatency, 6);
    const ledgerSpend = attempts.reduce((s, a) => s + (a.costUsd ?? 0), 0);
    expect(ledgerSpend).toBeGreaterThan(0);
    expect(sampleValue(f, 'switchyard_spend_usd_total', {})).toBeCloseTo(ledgerSpend, 12);
    expect(sampleValue(f, 'switchyard_spend_usd_total', {})).toBeCloseTo(
      requests.reduce((s, r) => s + r.costUsd, 0),
      12,
    );
    const output = attempts.reduce((s, a) => s + (a.usage?.outputTokens ?? 0), 0);
    expect(output).toBeGreaterThan(0);
    expect(sampleValue(f, 'switchyard_tokens_total', { direction: 'output' })).toBe(output);
    // The storm: two 429s in a row opened b's breaker in pipeline storm, and only there.
    expect(requests.slice(-2).map((r) => r.route)).toEqual(['b:429', 'b:429']);
    expect(sampleValue(f, 'switchyard_breaker_openings_total', {})).toBe(1);
    expect(sampleValue(f, 'switchyard_breaker_openings_total', { pipeline: 'storm', route: 'b' })).toBe(1);
    expect(
      sampleValue(f, 'switchyard_breaker_open', { pipeline: 'storm', model: 'b', provider: 'fake' }),
    ).toBe(1);
    expect(sampleValue(f, 'switchyard_breaker_open', {})).toBe(1);
    expect(sampleValue(f, 'switchyard_breaker_open', { pipeline: 'q', model: 'c' })).toBe(0);
  });

  it('never carries the prompt or a provider key', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } }, { configure: withMetrics });
    await h.post({ model: 'p', messages: [{ role: 'user', content: 'PROMPT-MARKER-7731' }] });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).not.toContain('PROMPT-MARKER-7731');
    expect(text).not.toContain(h.env.FAKE_KEY);
  });

  it('with caller keys on, needs an operator key: 401 without a key, 403 for a caller, 200 for an operator', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        configure: withMetrics,
        auth: { keys: { app: 'sk-app-key-1', ops: 'sk-ops-key-1' }, operatorKeys: ['ops'] },
      },
    );
    expect((await fetch(`${h.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${h.url}/metrics`, { headers: bearer('sk-app-key-1') })).status).toBe(403);
    await scrape(bearer('sk-ops-key-1'));
  });
});
