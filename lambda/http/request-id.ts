import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from './http-env.js';

const ACCEPTABLE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane token, else a new one (never echo junk into logs). */
export function pickRequestId(header: string | undefined): string {
  return header !== undefined && ACCEPTABLE.test(header) ? header : `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Picks the request id once, before anything else runs, and puts it on every answer — errors,
 * 401s and 413s included — so a caller can always quote it.
 */
export const requestIdMiddleware: MiddlewareHandler<HttpEnv> = async (c, next) => {
  const id = pickRequestId(c.req.header('x-request-id'));
  c.set('requestId', id);
  await next();
  if (!c.res.headers.has('x-request-id')) c.res.headers.set('x-request-id', id);
};
