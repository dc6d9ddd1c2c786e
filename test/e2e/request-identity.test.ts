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
import {
  bearer,
  type GatewayHarness,
  HELLO,
  memoryJobs,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

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
      {
        configure: (config) => {
          config.statusPage = { enabled: true };
        },
      },
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

describe('x-switchyard-request-id', () => {
  const ASK = { model: 'p', max_tokens: 50, ...HELLO };
  const door = (path: string, body: unknown, key = KEYS.alice): { path: string; init: RequestInit } => ({
    path,
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(body),
    },
  });

  it.each<[string, { path: string; init: RequestInit }, number]>([
    ['a chat completion', door('/v1/chat/completions', ASK), 200],
    ['a chat completion stream', door('/v1/chat/completions', { ...ASK, stream: true }), 200],
    ['a message', door('/v1/messages', ASK), 200],
    ['a message stream', door('/v1/messages', { ...ASK, stream: true }), 200],
    ['a bad message', door('/v1/messages', { model: 'p' }), 400],
    ['embeddings', door('/v1/embeddings', { model: 'emb', input: 'hello' }), 200],
    ['a new job', door('/v1/jobs', { model: 'p', ...HELLO }), 202],
    ['a job that does not exist', { path: '/v1/jobs/job_nope', init: { headers: bearer(KEYS.alice) } }, 404],
    ['a request without a key', { path: '/v1/chat/completions', init: { method: 'POST' } }, 401],
    ['an admission refusal', door('/v1/chat/completions', ASK, KEYS.bob), 429],
    ['an upstream failure', door('/v1/chat/completions', { ...ASK, model: 'down' }), 503],
    ['the health check', { path: '/healthz', init: {} }, 200],
  ])('is on %s, beside the echoed x-request-id', async (_name, { path, init }, status) => {
    h = await startGatewayHarness(
      { p: { chain: 'a' }, emb: { chain: 'e1' }, down: { chain: 'c' } },
      {
        auth: { keys: KEYS },
        jobs: memoryJobs(),
        configure: (config) => {
          Object.assign(config.models, { e1: { provider: 'fake', model: 'model-e1', dimensions: 8 } });
          // Bob's reservation (50 output tokens at $8 per million) does not fit his cap.
          config.admission = { keys: { bob: { usdPerDay: 0.000001 } } };
        },
      },
    );
    h.openai.setDefault('model-e1', { dimensions: 8 });
    h.openai.setDefault('model-c', { status: 503 });
    const headers = new Headers(init.headers);
    headers.set('x-request-id', 'door-1');
    const res = await fetch(`${h.url}${path}`, { ...init, headers });
    const body = await res.text();
    expect(res.status).toBe(status);
    const id = res.headers.get('x-switchyard-request-id');
    expect(id).toMatch(GATEWAY_ID);
    expect(res.headers.get('x-request-id')).toBe('door-1');
    // Anthropic's error envelope names the request by the gateway's id too.
    if (path === '/v1/messages' && status >= 400) expect(JSON.parse(body).request_id).toBe(id);
  });

  it('answers with the same id in both headers when the caller sends none, and writes it to the ledger', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const res = await h.post({ model: 'p', ...HELLO });
    const id = res.headers.get('x-switchyard-request-id');
    expect(id).toMatch(GATEWAY_ID);
    expect(res.headers.get('x-request-id')).toBe(id);
    await waitFor(() => h?.requests().length === 1);
    const line = h.requests()[0] as RequestLedgerEntry;
    expect(line.requestId).toBe(id);
    expect(line).not.toHaveProperty('clientRequestId');
  });

  it("runs a job under the job's id, whatever x-request-id its POST carried", async () => {
    const jobs = memoryJobs();
    h = await startGatewayHarness({ p: { chain: 'a' } }, { jobs });
    const res = await fetch(`${h.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'job-post-1' },
      body: JSON.stringify({ model: 'p', ...HELLO }),
    });
    expect(res.headers.get('x-request-id')).toBe('job-post-1');
    const { id } = (await res.json()) as { id: string };
    h.startWorker();
    await waitFor(() => h?.requests().length === 1);
    const line = h.requests()[0] as RequestLedgerEntry;
    expect(line.requestId).toBe(id);
    expect(line).not.toHaveProperty('clientRequestId');
    expect(h.attempts().map((a) => a.requestId)).toEqual([id]);
  });
});
