import { afterEach, describe, expect, it } from 'vitest';
import { dayBucket, utcDay } from '../../lambda/core/admission/admission-windows.js';
import { toNano } from '../../lambda/core/admission/limit-plan.js';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import {
  bearer,
  type GatewayHarness,
  PRICE,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const PROMPT = { messages: [{ role: 'user', content: 'twenty characters..' }] };

describe('usage of an interrupted stream', () => {
  it.each([
    ['stalled', 'quick', 'model-quick', { stallAfterChunks: 2 }, 'timeout'],
    ['corrupt', 'a', 'model-a', { malformedAfterChunks: 2 }, 'malformed_response'],
  ])('bills a %s stream the same way', async (_, model, upstream, fault, outcome) => {
    h = await startGatewayHarness({ p: { chain: model } });
    h.openai.script(upstream, [{ ...fault, text: 'one two three four five' }]);
    await (await h.post({ model: 'p', stream: true, ...PROMPT })).text();
    await waitFor(() => h.requests().length === 1);
    expect(h.attempts()[0]).toMatchObject({
      outcome,
      phase: 'after_output',
      usage: { inputTokens: 5, outputTokens: 2 },
      usageEstimated: true,
    });
  });

  it('bills a cut stream for the prompt estimate and the output the caller received', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.script('model-a', [{ cutAfterChunks: 2, text: 'one two three four five' }]);
    const res = await h.post({ model: 'p', stream: true, ...PROMPT });
    const text = await res.text();
    expect(text).toContain('stream_interrupted');
    await waitFor(() => h.requests().length === 1);
    const attempt = h.attempts()[0] as AttemptLedgerEntry;
    // The OpenAI fake reports usage only at the end: the prompt (19 characters) is estimated at 5
    // tokens, the output the caller got ('one two', 7 characters) at 2.
    expect(attempt).toMatchObject({ usage: { inputTokens: 5, outputTokens: 2 }, usageEstimated: true });
    const cost = (5 * PRICE.inputPerMTok + 2 * PRICE.outputPerMTok) / 1_000_000;
    expect(attempt.costUsd).toBeCloseTo(cost, 12);
    expect(h.requests()[0] as RequestLedgerEntry).toMatchObject({
      reason: 'partial',
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    expect((h.requests()[0] as RequestLedgerEntry).costUsd).toBeCloseTo(cost, 12);
  });

  it('settles the caller’s spend cap to the cut stream’s cost, as GET /v1/usage shows', async () => {
    const store = createMemoryAdmissionStore(systemClock);
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        auth: { keys: { alice: 'sk-alice-0123456789' } },
        admissionStore: store,
        configure: (c) => {
          c.admission = { keys: { alice: { usdPerDay: 1 } } };
        },
      },
    );
    h.openai.script('model-a', [{ cutAfterChunks: 2, text: 'one two three four five' }]);
    const alice = bearer('sk-alice-0123456789');
    await (await h.post({ model: 'p', stream: true, ...PROMPT }, alice)).text();
    const cost = toNano((5 * PRICE.inputPerMTok + 2 * PRICE.outputPerMTok) / 1_000_000);
    const now = () => Date.now();
    const spent = async () =>
      (await store.read('key:alice:spend', dayBucket(utcDay(now())), now())).get(dayBucket(utcDay(now()))) ??
      0;
    const until = Date.now() + 5_000;
    while ((await spent()) !== cost && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(await spent()).toBe(cost);
    const usage = (await (await fetch(`${h.url}/v1/usage`, { headers: alice })).json()) as {
      data: { field: string; used: number }[];
    };
    expect(usage.data.find((l) => l.field === 'admission.keys.alice.usdPerDay')?.used).toBeCloseTo(
      cost / 1e9,
      12,
    );
  });
});
