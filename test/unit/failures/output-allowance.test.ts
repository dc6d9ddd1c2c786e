import { describe, expect, it } from 'vitest';
import { AttemptTimeout } from '../../../lambda/core/failures/attempt-timeout.js';
import { isRouteSample } from '../../../lambda/core/failures/failure-class.js';
import {
  DEFAULT_OUTPUT_TOKENS_PER_SEC,
  explainedByOutput,
  outputAllowanceMs,
  totalWithOutput,
} from '../../../lambda/core/failures/output-allowance.js';
import { toProviderError } from '../../../lambda/core/failures/to-provider-error.js';

describe('the output allowance of a plain answer', () => {
  it('expects 20 tokens per second of a route that sets no rate', () => {
    expect(DEFAULT_OUTPUT_TOKENS_PER_SEC).toBe(20);
  });

  it.each([
    [undefined, 20, 0],
    [2_000, 20, 100_000],
    [2_000, 50, 40_000],
    [1, 3, 334],
    [3, 3, 1_000],
  ])('gives max_tokens %s at %s tokens/s %s ms', (maxTokens, rate, ms) => {
    expect(outputAllowanceMs(maxTokens, rate)).toBe(ms);
  });

  it.each([
    [499, 800],
    [500, 800],
    [501, 801],
  ])('makes the total max(totalMs, firstByteMs + allowance): allowance %s ms → %s ms', (allowance, total) => {
    expect(totalWithOutput({ firstByteMs: 300, totalMs: 800 }, allowance)).toBe(total);
  });
});

describe('a total-phase timeout the caller’s max_tokens explains', () => {
  it.each([
    [4_999, true],
    [5_000, false],
    [5_001, false],
  ])(
    'with a first byte at 1000 ms and 4000 ms of output, a total of %s ms is explained: %s',
    (totalMs, explained) => {
      expect(explainedByOutput({ totalMs, firstByteAtMs: 1_000, allowanceMs: 4_000 })).toBe(explained);
    },
  );

  it('is never explained without max_tokens', () => {
    expect(explainedByOutput({ totalMs: 1, firstByteAtMs: 0, allowanceMs: 0 })).toBe(false);
  });

  it('is carried from the attempt timeout to the provider error, and only when set', () => {
    const failed = (timeout: AttemptTimeout) => {
      const controller = new AbortController();
      controller.abort(timeout);
      return toProviderError(timeout, { provider: 'p', model: 'm', signal: controller.signal, nowMs: 0 });
    };
    expect(failed(new AttemptTimeout(3_000, 'total', true))).toMatchObject({
      failureClass: 'timeout',
      timeoutPhase: 'total',
      callerSized: true,
    });
    expect(failed(new AttemptTimeout(3_000, 'total')).callerSized).toBe(false);
    expect(new AttemptTimeout(3_000).callerSized).toBe(false);
  });
});

describe('isRouteSample', () => {
  it.each([
    ['a timeout', { failureClass: 'timeout' as const }, true],
    ['a timeout not explained by the caller', { failureClass: 'timeout' as const, callerSized: false }, true],
    [
      'a timeout the caller’s max_tokens explains',
      { failureClass: 'timeout' as const, callerSized: true },
      false,
    ],
    ['a missing provider key (local)', { failureClass: 'not_configured' as const }, false],
    [
      'an invalid request (recorded, counted by its class)',
      { failureClass: 'invalid_request' as const },
      true,
    ],
  ])('%s → %s', (_label, error, sample) => {
    expect(isRouteSample(error)).toBe(sample);
  });
});
