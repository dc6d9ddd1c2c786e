import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { CorsConfig } from '../core/catalog/cors-config-schema.js';
import { CLIENT_REQUEST_ID_HEADER, GATEWAY_REQUEST_ID_HEADER } from './request-id.js';

/** The answer headers a browser page may read: the evidence headers, request ids, the retry advice. */
export const EXPOSED_HEADERS = [
  GATEWAY_REQUEST_ID_HEADER,
  CLIENT_REQUEST_ID_HEADER,
  'x-switchyard-attempts',
  'x-switchyard-route',
  'x-switchyard-steps',
  'x-switchyard-selection',
  'x-switchyard-model',
  'x-switchyard-degraded',
  'x-switchyard-chain-variant',
  'x-switchyard-budget-remaining',
  'x-switchyard-job-id',
  'retry-after',
  // The retry advice (docs/http-api.md#retry-advice): an SDK in a browser reads it too.
  'retry-after-ms',
  'x-should-retry',
];

/**
 * The CORS middleware of `cors` (hono/cors), or none when no origin is allowed. It goes before
 * caller authentication: a browser's preflight carries no key, and is answered 204 with the
 * allowed origin (or without it, for any other origin, which the browser then refuses).
 */
export function corsPolicy(config: CorsConfig | undefined): MiddlewareHandler | undefined {
  if (!config || config.allowOrigins.length === 0) return undefined;
  const [first] = config.allowOrigins;
  return cors({
    origin: first === '*' ? '*' : config.allowOrigins,
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    ...(config.allowHeaders ? { allowHeaders: config.allowHeaders } : {}),
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: config.maxAgeSeconds,
  });
}
