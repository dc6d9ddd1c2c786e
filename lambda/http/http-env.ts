import type { Env } from 'hono';

/** What every request carries through the app, read with `c.var` and written with `c.set`. */
export interface HttpVariables {
  /**
   * The gateway's own request id, a fresh `req_<32 hex>` for every request: the one id that joins
   * ledger, spend, status and trace lines. Set first, on every request, by `requestIdMiddleware`.
   */
  requestId: string;
  /**
   * The caller's `x-request-id` when it sent a sane token (docs/http-api.md#request-ids), else
   * undefined. A label kept on the request line and echoed back, never a key.
   */
  clientRequestId: string | undefined;
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
