import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AttemptTimeout } from '../../../lambda/core/failures/attempt-timeout.js';
import { abortable, startAttemptDeadline } from '../../../lambda/core/router/attempt-control.js';
import { type Sleep, timerOfSleep } from '../../../lambda/core/time.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A fake clock whose `sleep` also records every timer started, in ms. */
function clockWithTimers() {
  const clock = createFakeClock(0);
  const started: number[] = [];
  const sleep: Sleep = (ms, signal) => {
    started.push(ms);
    return clock.sleep(ms, signal);
  };
  return { clock, started, sleep };
}

function start(limits: { firstByteMs: number; totalMs: number; allowanceMs?: number }) {
  const t = clockWithTimers();
  const deadline = startAttemptDeadline(
    timerOfSleep(t.sleep),
    t.clock.now,
    { allowanceMs: 0, ...limits },
    undefined,
  );
  return { ...t, deadline };
}

const reason = (signal: AbortSignal) => signal.reason as AttemptTimeout;

describe('the timer of one attempt', () => {
  it('names a first-byte timeout by the shorter limit when the total one is shorter', async () => {
    const { clock, deadline } = start({ firstByteMs: 5_000, totalMs: 3_000 });
    clock.advance(2_999);
    await tick();
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    await tick();
    expect(reason(deadline.signal)).toBeInstanceOf(AttemptTimeout);
    expect(reason(deadline.signal).phase).toBe('first_byte');
    expect(reason(deadline.signal).timeoutMs).toBe(3_000);
  });

  it('keeps its one timer at the first byte when the total limit equals the first-byte one', async () => {
    const { clock, started, deadline } = start({ firstByteMs: 4_000, totalMs: 4_000 });
    clock.advance(1_000);
    deadline.firstByte();
    expect(started).toEqual([4_000]);
    clock.advance(3_000);
    await tick();
    expect(reason(deadline.signal).phase).toBe('total');
    expect(reason(deadline.signal).timeoutMs).toBe(4_000);
  });

  it('keeps its one timer at the first byte when the total limit is shorter', () => {
    const { clock, started, deadline } = start({ firstByteMs: 5_000, totalMs: 3_000 });
    clock.advance(1_000);
    deadline.firstByte();
    expect(started).toEqual([3_000]);
  });

  it('moves to the total limit, counted from the start, when the first byte comes', async () => {
    const { clock, started, deadline } = start({ firstByteMs: 1_000, totalMs: 5_000 });
    clock.advance(400);
    deadline.firstByte();
    expect(started).toEqual([1_000, 4_600]);
    clock.advance(4_599);
    await tick();
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    await tick();
    expect(reason(deadline.signal).phase).toBe('total');
  });

  it('takes the time of the first first byte: a later call changes nothing', async () => {
    // Allowance 4 850 ms: a first byte at 100 ms is not explained by the output (4 950 < 5 000), one at 200 ms would be.
    const { clock, started, deadline } = start({ firstByteMs: 1_000, totalMs: 5_000, allowanceMs: 4_850 });
    clock.advance(100);
    deadline.firstByte();
    clock.advance(100);
    deadline.firstByte();
    expect(started).toEqual([1_000, 4_900]);
    clock.advance(4_800);
    await tick();
    expect(reason(deadline.signal).phase).toBe('total');
    expect(reason(deadline.signal).callerSized).toBe(false);
  });

  it('starts no timer again for a first byte that comes after the timer was stopped', async () => {
    const { clock, started, deadline } = start({ firstByteMs: 1_000, totalMs: 5_000 });
    clock.advance(100);
    deadline.stopTimer();
    deadline.firstByte();
    clock.advance(10_000);
    await tick();
    expect(started).toEqual([1_000]);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('does not time out an attempt stopped in the same turn its timer came due', async () => {
    const { clock, deadline } = start({ firstByteMs: 1_000, totalMs: 5_000 });
    clock.advance(1_000);
    deadline.stopTimer();
    await tick();
    expect(deadline.signal.aborted).toBe(false);
  });

  it('ignores a timer that fires after the attempt was stopped (a timer its cancel cannot reach)', () => {
    const fires: (() => void)[] = [];
    const deadline = startAttemptDeadline(
      (_ms, fire) => {
        fires.push(fire);
        return () => {};
      },
      () => 0,
      { firstByteMs: 1_000, totalMs: 5_000, allowanceMs: 0 },
      undefined,
    );
    deadline.stopTimer();
    for (const fire of fires) fire();
    expect(deadline.signal.aborted).toBe(false);
  });

  it('ends the attempt alone with the reason it is given, leaving the caller as it is', () => {
    const caller = new AbortController();
    const t = clockWithTimers();
    const deadline = startAttemptDeadline(
      timerOfSleep(t.sleep),
      t.clock.now,
      { firstByteMs: 1_000, totalMs: 5_000, allowanceMs: 0 },
      caller.signal,
    );
    const idle = new Error('idle');
    deadline.abort(idle);
    expect(deadline.signal.reason).toBe(idle);
    expect(caller.signal.aborted).toBe(false);
  });
});

describe('abortable', () => {
  it('rejects at once with the reason of a signal that already aborted, whatever the promise does', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller left'));
    const outcome = await Promise.race([
      abortable(new Promise<never>(() => {}), controller.signal).catch((error: Error) => error.message),
      tick().then(() => 'still waiting'),
    ]);
    expect(outcome).toBe('caller left');
  });

  it('handles the late rejection of a promise it no longer waits for', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const controller = new AbortController();
      controller.abort(new Error('caller left'));
      let fail: (error: Error) => void = () => {};
      const late = new Promise<never>((_resolve, reject) => {
        fail = reject;
      });
      await expect(abortable(late, controller.signal)).rejects.toThrow('caller left');
      fail(new Error('model failed late'));
      await tick();
      await tick();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('leaves no listener on the signal once the promise resolves or rejects', async () => {
    const controller = new AbortController();
    await abortable(Promise.resolve(1), controller.signal);
    await abortable(Promise.reject(new Error('x')), controller.signal).catch(() => {});
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener on the signal once it aborted first', async () => {
    const controller = new AbortController();
    const waiting = abortable(new Promise<never>(() => {}), controller.signal);
    controller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
