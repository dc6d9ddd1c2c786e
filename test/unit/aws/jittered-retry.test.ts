import { describe, expect, it } from 'vitest';
import { isTransientAwsError, retryWithinBudget } from '../../../lambda/aws/jittered-retry.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(Object.assign(new Error(name), { name }), extra);

/** A fake clock whose `sleep` moves time itself and records every pause. */
function timing(random = () => 0.5) {
  const clock = createFakeClock(0);
  const pauses: number[] = [];
  return {
    clock,
    random,
    pauses,
    sleep: async (ms: number) => {
      pauses.push(ms);
      clock.advance(ms);
    },
  };
}

describe('retryWithinBudget', () => {
  it('returns the first success without pausing', async () => {
    const t = timing();
    expect(await retryWithinBudget(async () => 'ok', { ...t, deadlineAt: 1_000 })).toBe('ok');
    expect(t.pauses).toEqual([]);
  });

  it('pauses with full jitter under caps that double from baseMs up to maxMs', async () => {
    const t = timing(() => 0.5);
    let calls = 0;
    const result = await retryWithinBudget(
      async () => {
        calls += 1;
        if (calls < 6) throw named('ThrottlingException');
        return calls;
      },
      { ...t, deadlineAt: 100_000, baseMs: 100, maxMs: 800, maxTries: 10 },
    );
    expect(result).toBe(6);
    // Half of each cap: 100, 200, 400, 800, 800.
    expect(t.pauses).toEqual([50, 100, 200, 400, 400]);
  });

  it('gives up with the last error when the next pause would reach the deadline, exactly at the boundary', async () => {
    const t = timing(() => 0.5);
    const error = named('ThrottlingException');
    // Pauses 25 then 50: after the first, now = 25; 25 + 50 = 75 reaches the deadline 75.
    await expect(
      retryWithinBudget(
        async () => {
          throw error;
        },
        { ...t, deadlineAt: 75, baseMs: 50 },
      ),
    ).rejects.toBe(error);
    expect(t.pauses).toEqual([25]);
    const u = timing(() => 0.5);
    let calls = 0;
    // With the deadline one ms later the second pause fits and the third try succeeds.
    await retryWithinBudget(
      async () => {
        calls += 1;
        if (calls < 3) throw error;
      },
      { ...u, deadlineAt: 76, baseMs: 50 },
    );
    expect(u.pauses).toEqual([25, 50]);
  });

  it('tries at most maxTries times (default 4)', async () => {
    const t = timing();
    let calls = 0;
    const fail = async () => {
      calls += 1;
      throw named('ThrottlingException');
    };
    await expect(retryWithinBudget(fail, { ...t, deadlineAt: 1_000_000 })).rejects.toThrow();
    expect(calls).toBe(4);
    calls = 0;
    await expect(retryWithinBudget(fail, { ...t, deadlineAt: 1_000_000, maxTries: 1 })).rejects.toThrow();
    expect(calls).toBe(1);
  });

  it('does not retry an error that is not transient', async () => {
    const t = timing();
    let calls = 0;
    await expect(
      retryWithinBudget(
        async () => {
          calls += 1;
          throw named('AccessDeniedException', { $metadata: { httpStatusCode: 400 } });
        },
        { ...t, deadlineAt: 10_000 },
      ),
    ).rejects.toThrow('AccessDeniedException');
    expect(calls).toBe(1);
  });

  it('hands each try the time left before the deadline', async () => {
    const t = timing(() => 1);
    const left: number[] = [];
    await retryWithinBudget(
      async (remainingMs) => {
        left.push(remainingMs);
        if (left.length < 3) throw named('ThrottlingException');
      },
      { ...t, deadlineAt: 1_000, baseMs: 100 },
    );
    expect(left).toEqual([1_000, 900, 700]);
  });
});

describe('isTransientAwsError', () => {
  it.each([
    ['ThrottlingException', {}, true],
    ['TooManyRequestsException', {}, true],
    ['InternalServerError', {}, true],
    ['TimeoutError', {}, true],
    ['SomethingElse', { $metadata: { httpStatusCode: 503 } }, true],
    ['SomethingElse', { $metadata: { httpStatusCode: 429 } }, true],
    ['SomethingElse', { $metadata: { httpStatusCode: 499 } }, false],
    ['Error', { code: 'ECONNREFUSED' }, true],
    ['ParameterNotFound', { $metadata: { httpStatusCode: 400 } }, false],
    ['ResourceNotFoundException', {}, false],
  ])('%s %o → %s', (name, extra, expected) => {
    expect(isTransientAwsError(named(name, extra))).toBe(expected);
  });

  it('looks through a wrapper to the SDK error it keeps as its cause', () => {
    const wrapped = new Error('wrapped', { cause: named('ThrottlingException') });
    expect(isTransientAwsError(wrapped)).toBe(true);
    expect(isTransientAwsError('ThrottlingException')).toBe(false);
  });
});
