import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from './http-env.js';

/** Header with the gateway's own request id, on every answer (docs/http-api.md#request-ids). */
export const GATEWAY_REQUEST_ID_HEADER = 'x-switchyard-request-id';

/** The caller's header: kept as `clientRequestId` and echoed, never used as the request id. */
export const CLIENT_REQUEST_ID_HEADER = 'x-request-id';

// A token that cannot break a log line, a header or the status page: no spaces, quotes, angle
// brackets, control characters or newlines, and at most 128 characters.
const ACCEPTABLE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** A new request id of the gateway: `req_` and 32 hex digits (a random UUID without its dashes). */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * The caller's `x-request-id` when it is a sane token (1–128 of `A–Z a–z 0–9 . _ : @ / + = -`),
 * else undefined: anything else is dropped, never echoed into logs, ledgers or headers.
 */
export function clientRequestIdOf(header: string | undefined): string | undefined {
  return header !== undefined && ACCEPTABLE.test(header) ? header : undefined;
}

/**
 * Gives every request the gateway's own id before anything else runs, keeps the caller's
 * `x-request-id` apart as `clientRequestId`, and puts both on every answer — errors, 401s and 413s
 * included — so a caller can always quote them: `x-switchyard-request-id` is ours, `x-request-id`
 * echoes the caller's (ours when it sent none or an unusable one). Only ours ever joins lines.
 */
export const requestIdMiddleware: MiddlewareHandler<HttpEnv> = async (c, next) => {
  const requestId = newRequestId();
  const clientRequestId = clientRequestIdOf(c.req.header(CLIENT_REQUEST_ID_HEADER));
  c.set('requestId', requestId);
  c.set('clientRequestId', clientRequestId);
  await next();
  c.res.headers.set(GATEWAY_REQUEST_ID_HEADER, requestId);
  c.res.headers.set(CLIENT_REQUEST_ID_HEADER, clientRequestId ?? requestId);
};
