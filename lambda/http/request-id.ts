import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

const ACCEPTABLE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
const KEY = 'requestId';

/** The caller's `x-request-id` when it is a sane token, else a new one (never echo junk into logs). */
export function pickRequestId(header: string | undefined): string {
  return header !== undefined && ACCEPTABLE.test(header) ? header : `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Picks the request id once, before anything else runs, and puts it on every answer — errors,
 * 401s and 413s included — so a caller can always quote it.
 */
export const requestIdMiddleware: MiddlewareHandler = async (c, next) => {
  const id = pickRequestId(c.req.header('x-request-id'));
  c.set(KEY as never, id as never);
  await next();
  if (!c.res.headers.has('x-request-id')) c.res.headers.set('x-request-id', id);
};

/** The id `requestIdMiddleware` picked for this request. */
export function requestIdOf(c: Context): string {
  const id: unknown = c.get(KEY as never);
  return typeof id === 'string' ? id : pickRequestId(c.req.header('x-request-id'));
}
