import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import { canaryOutcome, createCanaryGuard, watchCanary } from '../../../lambda/core/gateway/canary-guard.js';
import type { Target } from '../../../lambda/core/gateway/target.js';
import type { Logger } from '../../../lambda/core/logger.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const policy = { ...DEFAULT_BREAKER_POLICY, minSamples: 5, failureRate: 0.4, windowMs: 60_000 };
const SINCE = '2026-12-01T18:00:00Z';
const T0 = Date.parse(SINCE);

/** Feeds outcomes one ms apart; returns the guard and whether the last sample aborted the canary. */
function fed(outcomes: boolean[]) {
  const guard = createCanaryGuard();
  let last = false;
  outcomes.forEach((failed, i) => {
    last = guard.record('p', SINCE, failed, T0 + i, policy);
  });
  return { guard, last };
}

describe('the canary guard', () => {
  it('keeps every spelling of an override-only pipeline’s canary in one record, beside a configured one', () => {
    const guard = createCanaryGuard(stateScopeIn((pipeline) => pipeline === 'p'));
    for (const [i, pipeline] of ['f-o', 'F.O', 'f~o', 'F_O', 'f-O'].entries())
      guard.record(pipeline, SINCE, i % 2 === 0, T0 + i, policy);
    expect(guard.aborted('f.o', SINCE)).toBe(true);
    expect(guard.aborted('p', SINCE)).toBe(false);
  });

  it('aborts exactly when the failure share reaches failureRate over minSamples', () => {
    const { guard, last } = fed([true, false, true, false, false]);
    expect(last).toBe(true);
    expect(guard.aborted('p', SINCE)).toBe(true);
  });

  it('does not abort just below failureRate', () => {
    const { guard } = fed([true, false, false, false, false, false]);
    expect(guard.aborted('p', SINCE)).toBe(false);
  });

  it('waits for minSamples, however many fail', () => {
    const { guard } = fed([true, true, true, true]);
    expect(guard.aborted('p', SINCE)).toBe(false);
  });

  it('counts samples for windowMs and forgets them from then on', () => {
    const within = createCanaryGuard();
    const past = createCanaryGuard();
    for (let i = 0; i < 4; i += 1) {
      within.record('p', SINCE, true, T0, policy);
      past.record('p', SINCE, true, T0, policy);
    }
    expect(within.record('p', SINCE, true, T0 + policy.windowMs - 1, policy)).toBe(true);
    expect(past.record('p', SINCE, true, T0 + policy.windowMs, policy)).toBe(false);
  });

  it('reports the abort once, and a new canary of the pipeline starts afresh', () => {
    const { guard } = fed([true, true, true, true, true]);
    expect(guard.record('p', SINCE, true, T0 + 10, policy)).toBe(false);
    expect(guard.aborted('p', '2026-12-01T19:00:00Z')).toBe(false);
  });

  it.each([
    ['success', 'ok'],
    ['exhausted', 'failed'],
    ['deadline', 'failed'],
    ['partial', 'failed'],
    ['last_resort', 'failed'],
    ['stopped', undefined],
    ['cancelled', undefined],
  ] as const)('counts a request that ended %s as %s', (reason, outcome) => {
    expect(canaryOutcome(reason)).toBe(outcome);
  });
});

describe('watching a canary request', () => {
  const canary = { chain: 'b', tiers: [], warnings: [], percent: 10, since: SINCE, autoAbort: true };
  const target = (extra: Partial<Target>) =>
    ({ pipeline: 'p', canary, variant: 'canary', ...extra }) as Target;
  const request = (reason: 'exhausted' | 'success') =>
    ({
      type: 'request',
      requestId: 'r',
      pipeline: 'p',
      reason,
      attempts: 1,
      route: '',
      latencyMs: 1,
    }) as never;

  it('logs one ERROR naming the command when the canary’s requests abort it', () => {
    const errors: unknown[] = [];
    const log = {
      debug() {},
      info() {},
      warn() {},
      error: (m: string, f?: unknown) => errors.push([m, f]),
    } as Logger;
    const w = { guard: createCanaryGuard(), clock: createFakeClock(T0), log, policy: () => policy };
    for (let i = 0; i < 7; i += 1) watchCanary(target({}), w)?.(request('exhausted'));
    expect(errors).toEqual([
      [
        'canary aborted automatically in this container',
        expect.objectContaining({ pipeline: 'p', canary: 'b', action: 'switchyard chain abort p' }),
      ],
    ]);
    expect(w.guard.aborted('p', SINCE)).toBe(true);
  });

  it('watches only canary requests of a canary set with autoAbort', () => {
    const w = {
      guard: createCanaryGuard(),
      clock: createFakeClock(T0),
      log: {} as Logger,
      policy: () => policy,
    };
    expect(watchCanary(target({ variant: 'stable' }), w)).toBeUndefined();
    expect(watchCanary(target({ canary: { ...canary, autoAbort: false } }), w)).toBeUndefined();
  });
});
