import type { AttemptAction, AttemptStep } from '../ledger/ledger-entry.js';

/** The previous attempt, as far as its labels go: its model and route key. */
export interface PreviousAttempt {
  record: { model: string };
  routeKey: string;
}

/** `retry` for a route already attempted in this request (just before or earlier), `fallback` for a new one. */
export function actionOf(
  failOpen: boolean,
  routeKey: string,
  previous: string | undefined,
  tried: ReadonlySet<string>,
): AttemptAction {
  if (failOpen) return 'fail-open';
  if (previous === undefined) return 'first';
  return tried.has(routeKey) ? 'retry' : 'fallback';
}

/**
 * What the attempt is to the ones before it (docs/design.md#vocabulary): a route already attempted
 * in this request is a `retry`, even when other models came between (`alpha:503,beta:503,alpha:503`
 * is `first,substitute,retry`); the previous attempt's model through a new route is a `route`
 * step; anything else a `substitute`.
 */
export function stepOf(
  model: string,
  routeKey: string,
  previous: PreviousAttempt | undefined,
  tried: ReadonlySet<string>,
): AttemptStep | undefined {
  if (!previous) return undefined;
  if (tried.has(routeKey)) return 'retry';
  return previous.record.model === model ? 'route' : 'substitute';
}
