import { describe, expect, it } from 'vitest';
import { createRouteSignals } from '../../../lambda/core/router/route-signals.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

describe('route signals', () => {
  it('reads an unseen route as unknown latency, full success and nothing in flight', () => {
    const clock = createFakeClock();
    expect(createRouteSignals(clock.now).read('A')).toEqual({
      latencyMs: undefined,
      freshness: 0,
      successRate: 1,
      inFlight: 0,
    });
  });

  it('takes a slower sample at once (the peak) and blends a faster one by the time since', () => {
    const clock = createFakeClock();
    const signals = createRouteSignals(clock.now, { latencyDecayMs: 10_000 });
    signals.observe('A', { ok: true, latencyMs: 800 });
    signals.observe('A', { ok: true, latencyMs: 8_000 });
    expect(signals.read('A').latencyMs).toBe(8_000);
    clock.advance(10_000);
    signals.observe('A', { ok: true, latencyMs: 800 });
    // weight of the old value after one time constant: 1/e
    expect(signals.read('A').latencyMs).toBeCloseTo(800 + 7_200 / Math.E, 6);
  });

  it('lets the latency go stale: freshness falls to 1/e after one time constant', () => {
    const clock = createFakeClock();
    const signals = createRouteSignals(clock.now, { latencyDecayMs: 10_000 });
    signals.observe('A', { ok: true, latencyMs: 500 });
    expect(signals.read('A').freshness).toBe(1);
    clock.advance(10_000);
    expect(signals.read('A').freshness).toBeCloseTo(1 / Math.E, 9);
  });

  it('counts successes and failures with one success as the prior, and forgets them over time', () => {
    const clock = createFakeClock();
    const signals = createRouteSignals(clock.now, { outcomeDecayMs: 30_000 });
    signals.observe('A', { ok: false });
    signals.observe('A', { ok: true });
    expect(signals.read('A').successRate).toBeCloseTo(2 / 3, 9);
    clock.advance(3_000_000);
    expect(signals.read('A').successRate).toBeCloseTo(1, 6);
  });

  it('counts calls in flight per route and never below zero', () => {
    const signals = createRouteSignals(createFakeClock().now);
    signals.started('A');
    signals.started('A');
    signals.started('B');
    signals.finished('A');
    expect(signals.read('A').inFlight).toBe(1);
    signals.finished('B');
    signals.finished('B');
    expect(signals.read('B').inFlight).toBe(0);
  });
});
