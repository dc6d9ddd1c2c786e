/**
 * Request identity is the gateway's (docs/security.md#request-identity): a caller's `x-request-id`
 * is a label it gets back, never the key that joins spend, ledger or status lines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AdmissionStore } from '../../lambda/core/admission/admission-store.js';
import { dayBucket, utcDay } from '../../lambda/core/admission/admission-windows.js';
import { toNano } from '../../lambda/core/admission/limit-plan.js';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { bearer, type GatewayHarness, HELLO, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789', ops: 'sk-ops-0123456789' };
const GATEWAY_ID = /^req_[0-9a-f]{32}$/;

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function spentToday(store: AdmissionStore, counter: string): Promise<number> {
  const now = Date.now();
  const buckets = await store.read(counter, dayBucket(utcDay(now)), now);
  return buckets.get(dayBucket(utcDay(now))) ?? 0;
}

/** The day's spend of `counter` once it equals `expected` (settlement follows the answer), or what it is after 5 s. */
async function settledTo(store: AdmissionStore, counter: string, expected: number): Promise<number> {
  const until = Date.now() + 5_000;
  let spent = await spentToday(store, counter);
  while (spent !== expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
    spent = await spentToday(store, counter);
  }
  return spent;
}

/** What the attempt lines of one request cost, in nano-US$. */
function costOf(harness: GatewayHarness, requestId: string | null): number {
  return harness
    .attempts()
    .filter((a) => a.requestId === requestId)
    .reduce((sum, a) => sum + toNano(a.type === 'attempt' ? (a.costUsd ?? 0) : 0), 0);
}

describe('a reused x-request-id', () => {
  it('bills the request that made the spend, not the open request of another caller with the same id', async () => {
    const store = createMemoryAdmissionStore(systemClock);
    h = await startGatewayHarness(
      { p: { chain: 'a, b' } },
      {
        auth: { keys: KEYS, operatorKeys: ['ops'] },
        admissionStore: store,
        configure: (config) => {
          // Alice's cap is $0.01; bob's answer alone costs $0.016 (2000 output tokens at $8 per million).
          config.admission = { keys: { alice: { usdPerDay: 0.01 }, bob: { usdPerDay: 1 } } };
          config.statusPage = { enabled: true };
        },
      },
    );
    // Alice's first attempt fails at once and her fallback is slow, so her request is open, with
    // one attempt line written, while bob's runs from start to end under the same x-request-id.
    h.openai.script('model-a', [{ status: 503 }, { text: 'x'.repeat(8_000) }]);
    h.openai.script('model-b', [{ latencyMs: 1_500 }]);
    const shared = { 'x-request-id': 'shared-1' };
    const alice = h.post({ model: 'p', max_tokens: 10, ...HELLO }, { ...bearer(KEYS.alice), ...shared });
    await waitFor(() => h?.received('model-b') === 1);
    const bob = await h.post({ model: 'p', max_tokens: 3_000, ...HELLO }, { ...bearer(KEYS.bob), ...shared });
    expect(bob.status).toBe(200);
    const aliceAnswer = await alice;
    expect(aliceAnswer.status).toBe(200);

    const aliceId = aliceAnswer.headers.get('x-switchyard-request-id');
    const bobId = bob.headers.get('x-switchyard-request-id');
    expect(aliceId).toMatch(GATEWAY_ID);
    expect(bobId).toMatch(GATEWAY_ID);
    expect(aliceId).not.toBe(bobId);
    // Each caller still gets its own label back.
    expect(aliceAnswer.headers.get('x-request-id')).toBe('shared-1');
    expect(bob.headers.get('x-request-id')).toBe('shared-1');

    await waitFor(() => h?.requests().length === 2);
    const lines = h.requests() as RequestLedgerEntry[];
    expect(lines.map((l) => [l.requestId, l.clientRequestId, l.route]).sort()).toEqual(
      [
        [aliceId, 'shared-1', 'a:503,b:200'],
        [bobId, 'shared-1', 'a:200'],
      ].sort(),
    );

    const bobCost = costOf(h, bobId);
    const aliceCost = costOf(h, aliceId);
    expect(bobCost).toBeGreaterThan(toNano(0.01));
    expect(await settledTo(store, 'key:bob:spend', bobCost)).toBe(bobCost);
    expect(await settledTo(store, 'key:alice:spend', aliceCost)).toBe(aliceCost);
    // Alice spent a few tokens: she is not locked out by bob's answer.
    const again = await h.post({ model: 'p', max_tokens: 10, ...HELLO }, bearer(KEYS.alice));
    expect(again.status).toBe(200);
  });

  it('keeps the two requests apart on the status page, each with its own attempts', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a, b' } },
      { configure: (config) => void (config.statusPage = { enabled: true }) },
    );
    h.openai.script('model-a', [{ status: 503 }]);
    h.openai.script('model-b', [{ latencyMs: 1_500 }]);
    const shared = { 'x-request-id': 'shared-2' };
    const first = h.post({ model: 'p', ...HELLO }, shared);
    await waitFor(() => h?.received('model-b') === 1);
    const second = await h.post({ model: 'p', ...HELLO }, shared);
    const firstId = (await first).headers.get('x-switchyard-request-id');
    const secondId = second.headers.get('x-switchyard-request-id');
    await waitFor(() => h?.requests().length === 2);

    const status = (await (await fetch(`${h.url}/v1/status`)).json()) as {
      recent: { requestId: string; clientRequestId: string | null; attempts: { model: string }[] }[];
    };
    const trails = status.recent.map((r) => [r.requestId, r.clientRequestId, r.attempts.map((a) => a.model)]);
    expect(trails).toEqual([
      [firstId, 'shared-2', ['a', 'b']],
      [secondId, 'shared-2', ['a']],
    ]);
  });
});
