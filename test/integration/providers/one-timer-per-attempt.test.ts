/**
 * The router owns each attempt's time: one timer per attempt (through the injected `sleep`),
 * one signal handed down, and no timer in the adapter or its transport that could fire first.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../../lambda/core/breaker/breakers.js';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { LedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { routeGenerate, routeStream } from '../../../lambda/core/router/route-chat.js';
import type { RouteModel, RouteRequest, RouterDeps } from '../../../lambda/core/router/route-types.js';
import type { Sleep } from '../../../lambda/core/time.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { systemClock, systemSleep } from '../../../lambda/wiring/system-time.js';
import { uniformTimeouts } from '../../helpers/uniform-timeouts.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
const TIMEOUT_MS = 5_000;
/** The delay the openai SDK's own (never firing) timer is armed with. */
const SDK_NEVER = 2_147_483_647;

let fake: FakeUpstream;
let sleeps: number[];
let timers: number[];

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  sleeps = [];
  timers = [];
  const real = globalThis.setTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
    fn: () => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    timers.push(ms ?? 0);
    return real(fn, ms, ...args);
  }) as typeof setTimeout);
});
afterEach(() => vi.restoreAllMocks());

function deps(): RouterDeps {
  const routes = new Map<string, RouteModel>(
    ['a', 'b', 'c'].map((key) => [
      key,
      {
        model: createOpenAIChatModel({
          key,
          provider: 'openai',
          model: `up-${key}`,
          baseURL: fake.url,
          apiKey: 'sk-x',
        }),
        timeouts: uniformTimeouts(TIMEOUT_MS),
      },
    ]),
  );
  const counting: Sleep = (ms, signal) => {
    sleeps.push(ms);
    return systemSleep(ms, signal);
  };
  const ledger: LedgerEntry[] = [];
  return {
    clock: systemClock,
    random: seededRandom(1),
    sleep: counting,
    breakers: createBreakers({
      store: createMemoryBreakerStore(),
      clock: systemClock,
      policyFor: () => DEFAULT_BREAKER_POLICY,
    }),
    models: (key) => routes.get(key),
    ledger: (entry) => ledger.push(entry),
  };
}

function request(stream: boolean): RouteRequest {
  return {
    requestId: 'r1',
    pipeline: 'p',
    tiers: ['a', 'b', 'c'].map((key) => ({ members: [{ key, weight: 1 }] })),
    policy: { maxAttempts: 3, deadlineMs: 60_000, fallbackOnContextLength: false, substitution: 'allow' },
    stream,
  };
}

/** Timers that could fire during the request: everything but the SDK's never-firing one. */
const liveTimers = () => timers.filter((ms) => ms !== SDK_NEVER);

describe('one timer per attempt', () => {
  it('starts exactly one timer for each of three attempts over the real openai adapter', async () => {
    fake.script('up-a', [{ status: 429 }]);
    fake.script('up-b', [{ status: 503 }]);
    const result = await routeGenerate(request(false), deps(), REQUEST);
    expect(result.ok && result.route).toBe('a:429,b:503,c:200');
    expect(sleeps).toEqual([TIMEOUT_MS, TIMEOUT_MS, TIMEOUT_MS]);
    expect(liveTimers()).toEqual([TIMEOUT_MS, TIMEOUT_MS, TIMEOUT_MS]);
  });

  it('keeps no attempt timer after a stream commits: the caller alone ends it', async () => {
    fake.script('up-a', [{ chunkDelayMs: 5 }]);
    const result = await routeStream(request(true), deps(), REQUEST);
    if (!result.ok) throw new Error('expected a committed stream');
    for (;;) if ((await result.value.rest.next()).done) break;
    await result.settle({});
    expect(sleeps).toEqual([TIMEOUT_MS]);
    // The fake upstream's own chunk pacing runs in this process too; the gateway side arms no other.
    expect(liveTimers().filter((ms) => ms !== 5)).toEqual([TIMEOUT_MS]);
    expect(result.signal.aborted).toBe(false);
  });
});
