import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

/** The probe schedule's first step: a young opening probes every 5 s. */
const PROBE = DEFAULT_BREAKER_POLICY.probeSchedule[0]?.everyMs ?? 0;
const STEP = DEFAULT_BREAKER_POLICY.rampStepMs;
/** Requests per ramp step; the share of each step must land within ±5 points of its target. */
const PER_STEP = 300;
const TOLERANCE = 0.05;

let h: GatewayHarness | undefined;
let clock: FakeClock;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The gateway on a fake clock and a seeded random source; pipeline p = `a,b` on recovery `ramp`. */
async function start(): Promise<GatewayHarness> {
  clock = createFakeClock(Date.UTC(2026, 11, 1, 10));
  h = await startGatewayHarness(
    { p: { chain: 'a,b', breaker: { recovery: 'ramp' } } },
    { time: { clock, random: seededRandom(16), sleep: clock.sleep } },
  );
  return h;
}

async function trail(harness: GatewayHarness): Promise<string> {
  const res = await harness.post({ model: 'p', ...HELLO });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('x-switchyard-route') ?? '';
}

async function breakerA(harness: GatewayHarness) {
  const { data } = await (await fetch(`${harness.url}/v1/breakers?pipeline=p`)).json();
  return data.find((b: { model: string }) => b.model === 'a');
}

/** Opens a with two 429s, then lets it answer: the first probe slot, then two probes right after each success. */
async function openAndProbe(harness: GatewayHarness): Promise<void> {
  harness.openai.setDefault('model-a', { status: 429 });
  expect(await trail(harness)).toBe('a:429,b:200');
  // The 429 cools the account route for rateLimit.coolMs (5 s); the second 429 comes after it.
  clock.advance(5_000);
  expect(await trail(harness)).toBe('a:429,b:200');
  for (let i = 0; i < 20; i++) expect(await trail(harness)).toBe('b:200');
  expect(await breakerA(harness)).toMatchObject({ state: 'open', phase: 'open', recovery: 'ramp' });
  harness.openai.setDefault('model-a', {});
  clock.advance(PROBE - 1);
  expect(await trail(harness)).toBe('b:200');
  clock.advance(1);
  // A probe success frees the slot at once: the three probes follow each other; then the ramp begins.
  for (let probe = 1; probe <= 3; probe++) expect(await trail(harness)).toBe('a:200');
  const probes = harness.attempts().filter((e) => (e as AttemptLedgerEntry).recovery === 'probe');
  expect(probes).toHaveLength(3);
}

describe('half-open recovery over HTTP, with the fake upstreams', () => {
  it('a route that recovers returns gradually: 10 %, 25 %, 50 %, 100 % of requests, each within ±5 points', async () => {
    const harness = await start();
    await openAndProbe(harness);
    expect(await breakerA(harness)).toMatchObject({ state: 'closed', phase: 'ramp', rampShare: 10 });
    const shares: number[] = [];
    for (const [step, target] of [0.1, 0.25, 0.5, 1].entries()) {
      if (step > 0) clock.advance(STEP);
      const before = harness.received('model-a');
      for (let i = 0; i < PER_STEP; i++) await trail(harness);
      const share = (harness.received('model-a') - before) / PER_STEP;
      shares.push(share);
      expect(Math.abs(share - target)).toBeLessThanOrEqual(TOLERANCE);
    }
    expect(shares).toEqual([...shares].sort((x, y) => x - y));
    const admitted = harness
      .attempts()
      .filter((e): e is AttemptLedgerEntry => (e as AttemptLedgerEntry).recovery === 'ramp');
    expect(new Set(admitted.map((e) => e.rampShare))).toEqual(new Set([10, 25, 50, 100]));
    clock.advance(STEP);
    expect(await breakerA(harness)).toMatchObject({ state: 'closed', phase: 'closed', rampShare: null });
    for (let i = 0; i < 20; i++) expect(await trail(harness)).toBe('a:200');
  });

  it('a route that fails during the ramp opens again, and only probes reach it after that', async () => {
    const harness = await start();
    await openAndProbe(harness);
    clock.advance(STEP); // 25 %
    harness.openai.setDefault('model-a', { status: 503 });
    const before = harness.received('model-a');
    let failedAt = -1;
    for (let i = 0; i < 100 && failedAt < 0; i++) if ((await trail(harness)) === 'a:503,b:200') failedAt = i;
    expect(failedAt).toBeGreaterThanOrEqual(0);
    expect(harness.received('model-a')).toBe(before + 1);
    const reopened = await breakerA(harness);
    expect(reopened).toMatchObject({
      state: 'open',
      phase: 'open',
      openReason: 'failure_rate',
      rampShare: null,
    });
    expect(Date.parse(reopened.nextProbeAt)).toBe(clock.now() + PROBE);
    for (let i = 0; i < 50; i++) expect(await trail(harness)).toBe('b:200');
    clock.advance(PROBE);
    expect(await trail(harness)).toBe('a:503,b:200');
    expect(harness.received('model-a')).toBe(before + 2);
  });
});
