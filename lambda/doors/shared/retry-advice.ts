/**
 * Retry advice for the client libraries (docs/http-api.md#retry-advice). The OpenAI and Anthropic
 * SDKs retry a 408, 409, 429 or 5xx twice by default unless the answer says `x-should-retry:
 * false`, and wait `retry-after-ms` (else `Retry-After`) when it is at most a minute. Without
 * advice, one request whose chain the gateway already exhausted became three more chains.
 *
 * The rule: an answer an immediate retry cannot change says `x-should-retry: false` — a refusal
 * of the caller's own making (4xx other than 408, 409, 429), a 429 whose reset is further off
 * than the SDKs would wait, and a terminal 5xx after the gateway spent its own attempts (set by
 * the door that renders it, {@link NO_RETRY}). A 429 that waiting fixes keeps its `Retry-After`
 * and gains `retry-after-ms`. Status codes are never changed (SPEC §6).
 */
import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from '../../http/http-env.js';

/**
 * The longest wait, in seconds, that a client library honours from `Retry-After` (openai-node and
 * @anthropic-ai/sdk: 60 s; past it they fall back to their own backoff of under 10 s, so a retry
 * would arrive long before the reset). A 429 whose reset is further off says `x-should-retry: false`.
 */
export const FAR_RESET_SECONDS = 60;

/** The header pair that tells an SDK not to retry: for answers whose cause outlives any backoff. */
export const NO_RETRY = { 'x-should-retry': 'false' } as const;

// Statuses the SDKs retry on their own: the gateway says nothing unless it knows better.
const RETRIED_4XX = new Set([408, 409, 429]);

/** `Retry-After` in seconds when it is a whole number (the gateway writes nothing else). */
function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The advice headers for an answer of `status` with `headers`, or none when it needs none. */
export function retryAdvice(status: number, headers: Headers): Record<string, string> {
  if (headers.has('x-should-retry')) return {};
  if (status === 429) {
    const wait = retryAfterSeconds(headers);
    if (wait === undefined) return {};
    return wait > FAR_RESET_SECONDS ? { ...NO_RETRY } : { 'retry-after-ms': String(wait * 1000) };
  }
  // 499 is the gateway's own record of a caller that went away: nobody reads the answer.
  if (status >= 400 && status < 499 && !RETRIED_4XX.has(status)) return { ...NO_RETRY };
  return {};
}

/** Middleware on each door's path, outermost, so that every answer of the door carries the advice. */
export const retryAdviceMiddleware: MiddlewareHandler<HttpEnv> = async (c, next) => {
  await next();
  if (c.res.status < 400) return;
  for (const [name, value] of Object.entries(retryAdvice(c.res.status, c.res.headers)))
    c.res.headers.set(name, value);
};
