import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAttemptSignal } from '../../../lambda/providers/shared/attempt-signal.js';

describe('attempt signal', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts and reports timedOut when the attempt timer fires', () => {
    const attempt = createAttemptSignal(new AbortController().signal, 100);
    vi.advanceTimersByTime(99);
    expect(attempt.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.timedOut).toBe(true);
    expect((attempt.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('forwards the caller abort and its reason without reporting a timeout', () => {
    const caller = new AbortController();
    const attempt = createAttemptSignal(caller.signal, 100);
    const reason = new Error('client went away');
    caller.abort(reason);
    expect(attempt.signal.reason).toBe(reason);
    expect(attempt.timedOut).toBe(false);
  });

  it('starts aborted when the caller signal already is', () => {
    const attempt = createAttemptSignal(AbortSignal.abort(), 100);
    expect(attempt.signal.aborted).toBe(true);
    vi.advanceTimersByTime(200);
    expect(attempt.timedOut).toBe(false);
  });

  it('stops the timer without aborting (stream past its first chunk)', () => {
    const attempt = createAttemptSignal(new AbortController().signal, 100);
    attempt.stopTimer();
    vi.advanceTimersByTime(1000);
    expect(attempt.signal.aborted).toBe(false);
  });

  it('aborts on dispose only when asked to, and then ignores the caller', () => {
    const caller = new AbortController();
    const kept = createAttemptSignal(caller.signal, 100);
    kept.dispose(false);
    caller.abort();
    vi.advanceTimersByTime(1000);
    expect(kept.signal.aborted).toBe(false);

    const released = createAttemptSignal(new AbortController().signal, 100);
    released.dispose(true);
    expect(released.signal.aborted).toBe(true);
    expect(released.timedOut).toBe(false);
  });
});
