import type { ChainVariant } from '../core/ledger/ledger-entry.js';
import type { RouteResult } from '../core/router/route-types.js';

/**
 * The evidence headers of docs/design.md#evidence-the-ledger-and-headers, for a success or a
 * failure; `x-switchyard-chain-variant` only while the pipeline runs a canary.
 */
export function routeHeaders(result: RouteResult<unknown>, variant?: ChainVariant): Record<string, string> {
  // The request ids (`x-request-id`, `x-switchyard-request-id`) are requestIdMiddleware's, on every answer.
  const headers: Record<string, string> = {
    'x-switchyard-attempts': String(result.attempts.length),
    'x-switchyard-route': result.route,
    // One label per attempt, in the trail's order: `first`, then `retry`, `route` or `substitute`.
    'x-switchyard-steps': result.attempts.map((a) => a.step ?? 'first').join(','),
  };
  // A last-resort answer came from no model of this request: it says what it is instead.
  if (variant) headers['x-switchyard-chain-variant'] = variant;
  if (result.ok && result.degraded) headers['x-switchyard-degraded'] = result.degraded;
  else if (result.ok) headers['x-switchyard-model'] = result.model;
  return headers;
}
