import type { ChainVariant, SelectionDecision } from '../core/ledger/ledger-entry.js';
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
  const decided = result.attempts.at(-1)?.selection;
  if (decided) headers['x-switchyard-selection'] = selectionHeader(decided);
  // A last-resort answer came from no model of this request: it says what it is instead.
  if (variant) headers['x-switchyard-chain-variant'] = variant;
  if (result.ok && result.degraded) headers['x-switchyard-degraded'] = result.degraded;
  else if (result.ok) headers['x-switchyard-model'] = result.model;
  return headers;
}

/**
 * `x-switchyard-selection` (docs/concepts.md#selection-strategies): the strategy and score that chose
 * the last attempt's route, e.g. `adaptive;score=812.5;rival=gemini-flash;rival-score=8123`.
 */
function selectionHeader({ strategy, score, rival }: SelectionDecision): string {
  const round = (n: number) => String(Math.round(n * 10) / 10);
  const parts = [strategy, `score=${round(score)}`];
  if (rival) parts.push(`rival=${rival.route}`, `rival-score=${round(rival.score)}`);
  return parts.join(';');
}
