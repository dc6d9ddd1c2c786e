import { describe, expect, it } from 'vitest';
import { timerOfSleep } from '../../../lambda/core/time.js';
import { systemTimer } from '../../../lambda/wiring/system-time.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the timers of attempts', () => {
  it('a timer made of a sleep fires once its time has passed, not a millisecond before', async () => {
    const clock = createFakeClock(0);
    let fired = 0;
    timerOfSleep(clock.sleep)(100, () => fired++);
    clock.advance(99);
    await tick();
    expect(fired).toBe(0);
    clock.advance(1);
    await tick();
    expect(fired).toBe(1);
  });

  it('a cancelled timer made of a sleep never fires', async () => {
    const clock = createFakeClock(0);
    let fired = 0;
    const cancel = timerOfSleep(clock.sleep)(100, () => fired++);
    cancel();
    clock.advance(1_000);
    await tick();
    expect(fired).toBe(0);
  });

  it("setTimeout's timer fires, and a cancelled one does not", async () => {
    const fired: string[] = [];
    systemTimer(1, () => fired.push('kept'));
    systemTimer(1, () => fired.push('cancelled'))();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fired).toEqual(['kept']);
  });
});
