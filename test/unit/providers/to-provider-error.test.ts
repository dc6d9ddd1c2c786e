import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { type AttemptState, toProviderError } from '../../../lambda/providers/shared/to-provider-error.js';

const live = new AbortController().signal;
const state = (overrides: Partial<AttemptState> = {}): AttemptState => ({
  provider: 'openai',
  model: 'gpt-mini',
  callerSignal: live,
  timedOut: false,
  timeoutMs: 250,
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
    const error = toProviderError(cause, state());
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
    const error = toProviderError(
      rateLimited(),
      state({ callerSignal: AbortSignal.abort(), timedOut: true }),
    );
    expect(error).toMatchObject({ failureClass: 'cancelled', status: undefined });
  });

  it('reports our own attempt timer as timeout, naming the limit', () => {
    const error = toProviderError(new Error('This operation was aborted'), state({ timedOut: true }));
    expect(error).toMatchObject({ failureClass: 'timeout', message: 'upstream call timed out after 250 ms' });
  });

  it('passes a ProviderError through unchanged', () => {
    const original = new ProviderError({
      provider: 'openai',
      model: 'gpt-mini',
      failureClass: 'malformed_response',
      message: 'x',
    });
    expect(toProviderError(original, state())).toBe(original);
  });

  it('never echoes the API key of an upstream message', () => {
    const cause = Object.assign(new Error('401 Incorrect API key provided: sk-proj-abcdefghijklmnop1234.'), {
      status: 401,
    });
    const error = toProviderError(cause, state());
    expect(error.failureClass).toBe('upstream_auth');
    expect(error.message).not.toContain('sk-proj-abcdefghijklmnop1234');
  });
});
