import { describe, expect, it } from 'vitest';
import type { FailureClass } from '../../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import type { AttemptRecord, RouteFailure } from '../../../lambda/core/router/route-types.js';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';

const attempt = (
  model: string,
  outcome: FailureClass,
  status?: number,
  retryAfterMs?: number,
): AttemptRecord => ({
  attempt: 1,
  tier: 1,
  model,
  provider: 'fake',
  action: 'first',
  outcome,
  status,
  retryAfterMs,
  latencyMs: 1,
});

const failure = (
  reason: RouteFailure['reason'],
  attempts: AttemptRecord[],
  error?: ProviderError,
): RouteFailure => ({
  ok: false,
  reason,
  attempts,
  route: attempts.map((a) => `${a.model}:${a.status ?? a.outcome}`).join(','),
  error,
});

describe('terminal error', () => {
  it('answers 429 with Retry-After when every route was rate limited', () => {
    const t = terminalError(
      failure('exhausted', [attempt('a', 'rate_limited', 429, 2_500), attempt('b', 'rate_limited', 429)]),
      'p',
    );
    expect(t).toMatchObject({ status: 429, type: 'rate_limit_error', retryAfterSeconds: 3 });
    expect(t.message).toContain('a:429,b:429');
  });

  it('answers 502 naming the trail when routes failed in different ways', () => {
    const t = terminalError(
      failure('exhausted', [attempt('a', 'rate_limited', 429), attempt('b', 'network')]),
      'p',
    );
    expect(t).toMatchObject({ status: 502, code: 'all_routes_failed' });
    expect(t.message).toBe("all routes failed for pipeline 'p' after 2 attempt(s); route: a:429,b:network");
  });

  it('answers 503 when every route was unavailable', () => {
    expect(terminalError(failure('exhausted', [attempt('a', 'unavailable', 503)]), 'p').status).toBe(503);
  });

  it('answers 429 when every route was rate limited, even if the deadline ran out meanwhile', () => {
    const t = terminalError(failure('deadline', [attempt('a', 'rate_limited', 429, 2_000)]), 'p');
    expect(t).toMatchObject({ status: 429, retryAfterSeconds: 2 });
  });

  it('answers 503 naming no route when there was nothing to call', () => {
    expect(terminalError(failure('exhausted', []), 'p')).toMatchObject({ status: 503, code: 'no_route' });
  });

  it('answers 504 when the deadline is spent', () => {
    expect(terminalError(failure('deadline', [attempt('a', 'timeout')]), 'p')).toMatchObject({
      status: 504,
      code: 'deadline_exceeded',
    });
  });

  it('passes an invalid request through as 400 with the upstream message', () => {
    const error = new ProviderError({
      provider: 'x',
      model: 'a',
      failureClass: 'invalid_request',
      status: 400,
      message: "'messages' must not be empty",
    });
    expect(terminalError(failure('stopped', [attempt('a', 'invalid_request', 400)], error), 'p')).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_request',
      message: "'messages' must not be empty",
    });
  });

  it('answers 503 provider_not_configured naming each provider once when no route had a key', () => {
    const t = terminalError(
      failure('exhausted', [
        { ...attempt('a', 'not_configured'), provider: 'openai' },
        { ...attempt('b', 'not_configured'), provider: 'groq' },
        { ...attempt('c', 'not_configured'), provider: 'openai' },
      ]),
      'p',
    );
    expect(t).toEqual({
      status: 503,
      type: 'api_error',
      code: 'provider_not_configured',
      message:
        "pipeline 'p' has no model that can be called here: no API key is configured for provider(s) 'openai', 'groq'; route: a:not_configured,b:not_configured,c:not_configured",
    });
  });

  it('names the variable to set for each provider whose access names one', () => {
    const t = terminalError(
      {
        ...failure('exhausted', [
          { ...attempt('a', 'not_configured'), provider: 'openai' },
          { ...attempt('b', 'not_configured'), provider: 'google' },
          { ...attempt('c', 'not_configured'), provider: 'vault' },
        ]),
        unconfigured: new Map([
          ['openai', 'OPENAI_API_KEY'],
          ['google', 'GEMINI_API_KEY'],
          ['vault', undefined],
        ]),
      },
      'p',
    );
    expect(t.message).toBe(
      "pipeline 'p' has no model that can be called here: no API key is configured for provider(s) 'openai' (set OPENAI_API_KEY), 'google' (set GEMINI_API_KEY), 'vault'; route: a:not_configured,b:not_configured,c:not_configured",
    );
  });

  it('answers provider_not_configured even when the deadline ran out before any upstream call', () => {
    expect(terminalError(failure('deadline', [attempt('a', 'not_configured')]), 'p').code).toBe(
      'provider_not_configured',
    );
  });

  it('judges the upstream answers without the routes that had no key', () => {
    const limited = terminalError(
      failure('exhausted', [attempt('a', 'not_configured'), attempt('b', 'rate_limited', 429, 1_000)]),
      'p',
    );
    expect(limited).toMatchObject({ status: 429, code: 'all_routes_rate_limited', retryAfterSeconds: 1 });
    expect(limited.message).toContain('route: a:not_configured,b:429');
    const down = terminalError(
      failure('exhausted', [attempt('a', 'not_configured'), attempt('b', 'unavailable', 503)]),
      'p',
    );
    expect(down).toMatchObject({ status: 503, code: 'all_routes_unavailable' });
    const mixed = terminalError(
      failure('exhausted', [attempt('a', 'not_configured'), attempt('b', 'network')]),
      'p',
    );
    expect(mixed).toMatchObject({ status: 502, code: 'all_routes_failed' });
  });

  it('names context length and content policy in the code', () => {
    const ctx = new ProviderError({
      provider: 'x',
      model: 'a',
      failureClass: 'context_length',
      message: 'too long',
    });
    const policy = new ProviderError({
      provider: 'x',
      model: 'a',
      failureClass: 'content_policy',
      message: 'refused',
    });
    expect(terminalError(failure('stopped', [], ctx), 'p').code).toBe('context_length_exceeded');
    expect(terminalError(failure('stopped', [], policy), 'p').code).toBe('content_policy_violation');
  });
});

describe('terminal error under a substitution limit', () => {
  const forbid = { setting: 'substitution', maxTier: 1 } as const;
  const maxTier2 = { setting: 'maxTier', maxTier: 2 } as const;

  it.each([
    ['every allowed route said 429', [attempt('a', 'rate_limited', 429, 1_000)], 429, 'rate_limit_error'],
    ['every allowed route was unavailable', [attempt('a', 'unavailable', 503)], 503, 'api_error'],
    ['mixed failures', [attempt('a', 'unavailable', 503), attempt('a', 'network')], 502, 'api_error'],
  ] as const)(
    'keeps the status the failures earned when %s, and names the limit',
    (_, attempts, status, type) => {
      const t = terminalError({ ...failure('exhausted', [...attempts]), limit: forbid }, 'p');
      expect(t).toMatchObject({ status, type, code: 'substitution_forbidden' });
      expect(t.message).toContain("pipeline 'p' forbids substitution (substitution: forbid)");
      expect(t.message).toContain(`route: ${attempts.map((a) => `a:${a.status ?? a.outcome}`).join(',')}`);
    },
  );

  it('names maxTier and its tier', () => {
    const t = terminalError(
      { ...failure('exhausted', [attempt('a', 'unavailable', 503)]), limit: maxTier2 },
      'p',
    );
    expect(t).toMatchObject({ status: 503, code: 'max_tier_reached' });
    expect(t.message).toContain('may not degrade past tier 2 (maxTier: 2)');
  });

  it.each([
    ['a spent deadline', failure('deadline', [attempt('a', 'timeout')]), 'deadline_exceeded'],
    [
      'a stopped request',
      failure(
        'stopped',
        [attempt('a', 'invalid_request', 400)],
        new ProviderError({
          provider: 'fake',
          model: 'a',
          failureClass: 'invalid_request',
          status: 400,
          message: 'bad',
        }),
      ),
      'invalid_request',
    ],
    ['no key anywhere', failure('exhausted', [attempt('a', 'not_configured')]), 'provider_not_configured'],
  ])('leaves %s as it was', (_, base, code) => {
    expect(terminalError({ ...base, limit: forbid }, 'p').code).toBe(code);
  });
});
