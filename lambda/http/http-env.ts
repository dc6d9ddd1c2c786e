import type { Env } from 'hono';

/** What every request carries through the app, read with `c.var` and written with `c.set`. */
export interface HttpVariables {
  /**
   * The request id: the caller's `x-request-id` when it is a sane token, else a fresh `req_…`. Set
   * first, on every request, by `requestIdMiddleware`.
   */
  requestId: string;
  /**
   * The NAME of the caller's key (for logs and ownership), never the key. Undefined while caller
   * authentication is off; with it on, `callerAuth` sets it for every caller it admits.
   */
  callerKeyName: string | undefined;
}

/** The Hono environment of the Switchyard app and its sub-apps. */
export interface HttpEnv extends Env {
  Variables: HttpVariables;
}
