import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

/**
 * The review's case scaled down ten times: `timeoutMs` 3 s and a 50 tokens/s upstream asked for
 * `max_tokens: 2000` (40 s of writing) become 300 ms and 500 tokens/s (4 s of writing), within a
 * request deadline of 1.5 s. Model `slow` (raw id `model-slow`) sets no rate of its own, so the
 * router expects the default 20 tokens/s of it.
 */
const PIPELINES = {
  long: { chain: 'slow,b', deadlineMs: 1_500, maxAttempts: 2, breaker: { minSamples: 2 } },
};
/** Far more words than any request here asks for; the fake cuts it at `max_tokens` (one token a word). */
const LONG_TEXT = 'tok '.repeat(5_000);

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

async function gateway() {
  h = await startGatewayHarness(PIPELINES, {
    configure: (config) => {
      config.models.slow = { provider: 'fake', model: 'model-slow', timeoutMs: 300 };
    },
  });
  return h;
}

const ask = (maxTokens: number) =>
  h.post({ model: 'long', max_tokens: maxTokens, messages: [{ role: 'user', content: 'Write at length.' }] });

interface BreakerRow {
  model: string;
  state: string;
  openReason: string | null;
}
const breakerOf = async (model: string): Promise<BreakerRow | undefined> =>
  ((await (await fetch(`${h.url}/v1/breakers?pipeline=long`)).json()).data as BreakerRow[]).find(
    (row) => row.model === model,
  );
const slowAttempts = () =>
  h.attempts().filter((a) => (a as AttemptLedgerEntry).model === 'slow') as AttemptLedgerEntry[];

describe('a caller’s request size cannot fail a healthy route (docs/configuration.md#timeouts)', () => {
  it('leaves the breaker closed after four answers too long for the deadline, and the route serves the next caller', async () => {
    await gateway();
    h.openai.setDefault('model-slow', { text: LONG_TEXT, tokensPerSec: 500 });
    const answers = await Promise.all([1, 2, 3, 4].map(() => ask(2_000)));
    for (const res of answers) {
      // The caller's own request could not be written in its deadline: the caller's 504, nobody else's.
      expect(res.status).toBe(504);
      expect(res.headers.get('x-switchyard-route')).toBe('slow:timeout');
    }
    const lines = slowAttempts();
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(line).toMatchObject({ outcome: 'timeout', timeoutPhase: 'total', callerSized: true });
    }
    expect((await breakerOf('slow'))?.state ?? 'closed').toBe('closed');

    const next = await ask(5);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-switchyard-route')).toBe('slow:200');
  });

  it('gives a plain answer the time its max_tokens needs beyond timeoutMs', async () => {
    await gateway();
    // 200 tokens at 500 tokens/s: 400 ms of writing after the headers, past the 300 ms of timeoutMs.
    h.openai.setDefault('model-slow', { text: LONG_TEXT, tokensPerSec: 500 });
    const res = await ask(200);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('slow:200');
    expect((await res.json()).usage.completion_tokens).toBe(200);
  });

  it('still opens the breaker of a stalled route, whatever max_tokens the callers ask for', async () => {
    await gateway();
    h.openai.setDefault('model-slow', { hang: true });
    for (let i = 0; i < 2; i++) {
      const res = await ask(2_000);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe('slow:timeout,b:200');
    }
    for (const line of slowAttempts()) {
      expect(line).toMatchObject({ outcome: 'timeout', timeoutPhase: 'first_byte' });
      expect(line.callerSized).toBeUndefined();
    }
    expect(await breakerOf('slow')).toMatchObject({ state: 'open', openReason: 'failure_rate' });
  });

  it('still opens the breaker of a route slower than its expected rate, which had all the time it needed', async () => {
    await gateway();
    // 10 tokens at the expected 20/s: 500 ms after the first byte, so 800 ms in all; at 5/s it needs 2 s.
    h.openai.setDefault('model-slow', { text: LONG_TEXT, tokensPerSec: 5 });
    for (let i = 0; i < 2; i++) {
      const res = await ask(10);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe('slow:timeout,b:200');
    }
    for (const line of slowAttempts()) {
      expect(line).toMatchObject({ outcome: 'timeout', timeoutPhase: 'total' });
      expect(line.callerSized).toBeUndefined();
    }
    expect(await breakerOf('slow')).toMatchObject({ state: 'open', openReason: 'failure_rate' });
  });
});
