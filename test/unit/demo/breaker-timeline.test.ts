import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBreakerTimeline } from '../../../lambda/dev/demo/breaker-timeline.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();
const at = (offsetMs: number) => vi.setSystemTime(T0 + offsetMs);
const breaker = { pipeline: 'generate', model: 'gpt-mini' };

beforeEach(() => {
  vi.useFakeTimers();
  at(0);
});
afterEach(() => vi.useRealTimers());

describe('demo breaker timeline', () => {
  it('follows a ramp breaker open → probing → ramp → closed from the gateway’s log lines', () => {
    const t = createBreakerTimeline(T0);
    at(1_000);
    t.log.warn('breaker opened', {
      ...breaker,
      reason: 'consecutive_429',
      openUntil: iso(1_200),
      recovery: 'ramp',
    });
    at(1_300);
    t.log.info('breaker probe', { ...breaker, nextProbeAt: iso(1_500) });
    expect(t.openAt(1_400)).toEqual([expect.objectContaining({ phase: 'probing' })]);
    at(1_500);
    t.log.info('breaker probe', { ...breaker, nextProbeAt: iso(1_700) });
    at(1_700);
    t.log.info('breaker ramping', { ...breaker, rampUntil: iso(3_300) });
    t.close(5_000);
    expect(
      t.intervals.map(({ phase, startMs, endMs, reason }) => ({ phase, startMs, endMs, reason })),
    ).toEqual([
      { phase: 'open', startMs: 1_000, endMs: 1_300, reason: 'consecutive_429' },
      { phase: 'probing', startMs: 1_300, endMs: 1_700, reason: 'consecutive_429' },
      { phase: 'ramp', startMs: 1_700, endMs: 3_300, reason: 'consecutive_429' },
    ]);
    expect(t.intervals[2]?.untilMs).toBe(3_300);
    expect(t.openAt(2_000)).toEqual([]);
    expect(t.otherEvents.size).toBe(0);
  });

  it('cuts a ramp short when the breaker opens again, and ends what is still waiting at close', () => {
    const t = createBreakerTimeline(T0);
    t.log.warn('breaker opened', {
      ...breaker,
      reason: 'consecutive_429',
      openUntil: iso(200),
      recovery: 'ramp',
    });
    at(300);
    t.log.info('breaker ramping', { ...breaker, rampUntil: iso(2_000) });
    at(900);
    t.log.warn('breaker opened', {
      ...breaker,
      reason: 'failure_rate',
      openUntil: iso(1_100),
      recovery: 'ramp',
    });
    expect(t.openAt(950)).toEqual([expect.objectContaining({ phase: 'open', reason: 'failure_rate' })]);
    t.close(1_500);
    const ramp = t.intervals.find((i) => i.phase === 'ramp');
    expect(ramp).toMatchObject({ startMs: 300, endMs: 900, untilMs: 2_000 });
    expect(t.intervals.at(-1)).toMatchObject({ phase: 'open', startMs: 900, endMs: 1_500 });
  });

  it('a window opening lasts exactly until openUntil; other warnings are counted', () => {
    const t = createBreakerTimeline(T0);
    t.log.warn('breaker opened', {
      ...breaker,
      reason: 'failure_rate',
      openUntil: iso(600),
      recovery: 'window',
    });
    t.log.warn('breaker store failed; routing on what this process knows', {});
    t.close(5_000);
    expect(t.intervals).toEqual([expect.objectContaining({ phase: 'open', startMs: 0, endMs: 600 })]);
    expect([...t.otherEvents]).toEqual([['breaker store failed; routing on what this process knows', 1]]);
  });
});
