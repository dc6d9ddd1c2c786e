import { describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { createDemoScenario } from '../../../lambda/dev/demo/demo-scenario.js';
import type { CallRecord } from '../../../lambda/dev/demo/load-driver.js';
import { describeOutage, outageRecoveries } from '../../../lambda/dev/demo/outage-recovery.js';

const scenario = createDemoScenario(60);
const outage = scenario.providers.find((p) => p.outage)?.outage ?? { startMs: 0, endMs: 0, status: 503 };

const record = (model: string, sentMs: number, status = 200): CallRecord => ({
  pipeline: 'generate',
  phase: 2,
  sentMs,
  latencyMs: 300,
  status,
  cut: false,
  model,
  tier: 1,
  attempts: 1,
  upstream429: 0,
});

const attempt = (model: string, status: number | undefined, probe: boolean): AttemptLedgerEntry => ({
  type: 'attempt',
  requestId: 'r',
  pipeline: 'generate',
  attempt: 1,
  tier: 1,
  model,
  provider: 'sim',
  action: 'first',
  outcome: status === undefined ? 'ok' : 'unavailable',
  status,
  phase: 'before_output',
  latencyMs: 30,
  ...(probe ? { recovery: 'probe' as const } : {}),
});

describe('demo: back after an outage', () => {
  it('measures from the outage’s end to the first request sent at or after it that the provider answered', () => {
    const records = [
      record('gemini-flash', outage.endMs - 1),
      record('gpt-mini', outage.endMs),
      record('gemini-flash', outage.endMs + 700, 502),
      record('gemini-flash', outage.endMs + 900),
      record('gemini-flash', outage.endMs + 1_500),
    ];
    const [o] = outageRecoveries(scenario, records, []);
    expect(o).toMatchObject({ modelKey: 'gemini-flash', endMs: outage.endMs, backAfterMs: 900 });
    expect(outageRecoveries(scenario, [record('gemini-flash', outage.endMs)], [])[0]?.backAfterMs).toBe(0);
  });

  it('counts the attempts that got the outage’s status, and those of them that were probes', () => {
    const ledger = [
      attempt('gemini-flash', 503, false),
      attempt('gemini-flash', 503, true),
      attempt('gemini-flash', 503, true),
      attempt('gemini-flash', 429, true),
      attempt('gemini-flash', undefined, true),
      attempt('gpt-mini', 503, true),
    ];
    const [o] = outageRecoveries(scenario, [], ledger);
    expect(o).toMatchObject({ probesIntoOutage: 2, callsIntoOutage: 3, backAfterMs: undefined });
    expect(describeOutage(o ?? ({} as never))).toContain('not answering again before the run ended');
  });

  it('says the time back in real seconds and on the breakers’ scale (15 minutes of breaker time in openMs)', () => {
    const [o] = outageRecoveries(scenario, [record('gemini-flash', outage.endMs + 400)], []);
    const minute = scenario.breaker.openMs / 15;
    expect(o?.breakerMsPerMinute).toBe(minute);
    expect(describeOutage(o ?? ({} as never))).toContain(
      `back 0.4 s after its end (${(400 / minute).toFixed(1)} min on the breakers' scale)`,
    );
  });
});
