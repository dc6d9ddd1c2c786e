import { describe, expect, it } from 'vitest';
import { AttemptTimeout } from '../../../lambda/core/failures/attempt-timeout.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { type FailedAttempt, toProviderError } from '../../../lambda/core/failures/to-provider-error.js';

const live = new AbortController().signal;
const attempt = (overrides: Partial<FailedAttempt> = {}): FailedAttempt => ({
  provider: 'openai',
  model: 'gpt-mini',
  signal: live,
  nowMs: 0,
  ...overrides,
});

function rateLimited(): Error {
  return Object.assign(new Error('429 Rate limit reached'), {
    status: 429,
    headers: new Headers({ 'retry-after': '2' }),
  });
}

describe('toProviderError', () => {
  it('classifies an SDK error and keeps it as the cause', () => {
    const cause = rateLimited();
    const error = toProviderError(cause, attempt());
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      provider: 'openai',
      model: 'gpt-mini',
      status: 429,
      failureClass: 'rate_limited',
      retryAfterMs: 2000,
    });
    expect(error.cause).toBe(cause);
  });

  it('reports a caller abort as cancelled, whatever the SDK threw', () => {
    const error = toProviderError(rateLimited(), attempt({ signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ failureClass: 'cancelled', status: undefined });
  });

  it("reports a caller's own AbortSignal.timeout as cancelled: only the attempt deadline is a timeout", () => {
    const caller = new AbortController();
    caller.abort(new DOMException('signal timed out', 'TimeoutError'));
    const error = toProviderError(
      new Error('This operation was aborted'),
      attempt({ signal: caller.signal }),
    );
    expect(error.failureClass).toBe('cancelled');
  });

  it('reports the attempt deadline as timeout, naming the limit', () => {
    const deadline = new AbortController();
    deadline.abort(new AttemptTimeout(250));
    const error = toProviderError(
      new Error('This operation was aborted'),
      attempt({ signal: deadline.signal }),
    );
    expect(error).toMatchObject({ failureClass: 'timeout', message: 'attempt timed out after 250 ms' });
  });

  it('reports a first-byte deadline as timeout with its phase', () => {
    const deadline = new AbortController();
    deadline.abort(new AttemptTimeout(300, 'first_byte'));
    const error = toProviderError(new Error('aborted'), attempt({ signal: deadline.signal }));
    expect(error).toMatchObject({
      failureClass: 'timeout',
      timeoutPhase: 'first_byte',
      message: 'first byte timed out after 300 ms',
    });
  });

  it("reports the transport's connect limit as timeout of phase connect, though the signal never aborted", () => {
    const error = toProviderError(new AttemptTimeout(200, 'connect'), attempt());
    expect(error).toMatchObject({
      failureClass: 'timeout',
      timeoutPhase: 'connect',
      message: 'connect timed out after 200 ms',
    });
  });

  it('lets an aborted signal win over a ProviderError the SDK path produced', () => {
    const deadline = new AbortController();
    deadline.abort(new AttemptTimeout(100));
    const original = new ProviderError({
      provider: 'openai',
      model: 'gpt-mini',
      failureClass: 'network',
      message: 'x',
    });
    expect(toProviderError(original, attempt({ signal: deadline.signal })).failureClass).toBe('timeout');
  });

  it('passes a ProviderError through unchanged', () => {
    const original = new ProviderError({
      provider: 'openai',
      model: 'gpt-mini',
      failureClass: 'malformed_response',
      message: 'x',
    });
    expect(toProviderError(original, attempt())).toBe(original);
  });

  it('never echoes the API key of an upstream message', () => {
    const cause = Object.assign(new Error('401 Incorrect API key provided: sk-proj-abcdefghijklmnop1234.'), {
      status: 401,
    });
    const error = toProviderError(cause, attempt());
    expect(error.failureClass).toBe('upstream_auth');
    expect(error.message).not.toContain('sk-proj-abcdefghijklmnop1234');
  });
});
