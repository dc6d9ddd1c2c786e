import { FAILURE_POLICY } from '../failures/failure-class.js';
import { ProviderError } from '../failures/provider-error.js';
import { SchemaInvalidError } from '../failures/schema-invalid-error.js';
import { AttemptBook } from './attempt-book.js';
import { attemptSignals } from './attempt-signals.js';
import { type Continuation, committed, type LoopState } from './committed-attempt.js';
import { type AttemptPlanner, createAttemptPlanner, type PlannedAttempt } from './next-attempt.js';
import { attempt, attemptLimits } from './one-attempt.js';
import type { AttemptCall, RouteFailure, RouteRequest, RouteResult, RouterDeps } from './route-types.js';

/**
 * The attempt loop of docs/design.md#the-attempt-loop: retry, route fallback and substitution are
 * one loop, within the pipeline's substitution limits. Every attempt selects afresh
 * from the breaker state, which already holds the previous attempt's sample; failures that must
 * not be hidden (invalid request, content policy, cancellation) stop the loop at once.
 *
 * A local failure (`not_configured`: this process has no key for the provider) is written to the
 * ledger and the trail like any attempt, but never to the breaker store, does not use up one of
 * `maxAttempts`, and leaves that model out for the rest of the request.
 */
export async function runAttempts<T>(
  request: RouteRequest,
  deps: RouterDeps,
  call: AttemptCall<T>,
  continuation?: Continuation<T>,
): Promise<RouteResult<T>> {
  const { clock } = deps;
  const { policy, signal } = request;
  const startedAt = clock.now();
  const deadline = startedAt + policy.deadlineMs;
  const planner = createAttemptPlanner(request, deps, deadline);
  const book = new AttemptBook(request, deps, startedAt, planner);
  // Attempts that reached (or tried to reach) an upstream: local failures do not use up the budget.
  // A continuation after the commit spends from the same count.
  const loop: LoopState<T> = { request, deps, book, deadline, sent: 0, continuation };
  // A structured-output repair that goes back to the model that answered wrongly.
  let repeat: PlannedAttempt | undefined;

  for (let n = 1; loop.sent < policy.maxAttempts; n++) {
    if (signal?.aborted) return book.finish('cancelled');
    if (clock.now() >= deadline) return book.finish('deadline');
    // A same-model repair at its bulkhead or quota goes to the next selection instead.
    const again = repeat && (await planner.again(repeat, n));
    repeat = undefined;
    const planned = again || (await planner.next(n));
    if (!planned) return noRouteLeft(book, planner, request);
    if (planned.tooSmall) book.skip(planned.tooSmall, 'context');
    // A `contract` retry waits out its backoff or `Retry-After` first; a caller who leaves ends it.
    if (planned.waitMs && !(await waited(deps, planned.waitMs, signal))) {
      planned.lease?.release();
      return book.finish('cancelled');
    }
    // The breaker read may have taken the rest of the budget: no attempt without time to run it.
    if (clock.now() >= deadline) {
      planned.lease?.release();
      return book.finish('deadline');
    }

    const startedAttemptAt = clock.now();
    const signals = attemptSignals(deps.signals, planned.routeKey);
    const outcome = await attempt(
      call,
      planned.route,
      attemptLimits(planned.route, deadline - startedAttemptAt, request.maxOutputTokens),
      deps,
      signal,
    );
    // A failed attempt gives its in-flight slots back now, a committed one when it settles.
    if (!outcome.ok) planned.lease?.release();
    if (outcome.ok) {
      signals.answered(clock.now() - startedAttemptAt);
      book.commit(planned);
      loop.sent += 1;
      return committed(loop, outcome, planned, startedAttemptAt, undefined, () => {
        signals.finish();
        planned.lease?.release();
      });
    }
    const { error } = outcome;
    signals.failed(error, clock.now() - startedAttemptAt);
    const usage = error instanceof SchemaInvalidError ? error.usage : undefined;
    await book.record({ ...planned, startedAt: startedAttemptAt, phase: 'before_output', error, usage });
    const local = FAILURE_POLICY[error.failureClass].local;
    if (error instanceof SchemaInvalidError && error.repairSameModel) repeat = planned;
    else planner.failed(planned.routeKey, local, error);
    if (local) continue;
    loop.sent += 1;
    if (error.failureClass === 'cancelled') return book.finish('cancelled');
    const tooLong = error.failureClass === 'context_length' && policy.fallbackOnContextLength;
    // Too long for this model: only a model with a larger context window may take it now.
    if (tooLong) planner.contextExceeded(planned.routeKey);
    if (!FAILURE_POLICY[error.failureClass].fallback && !tooLong) return book.finish('stopped');
  }
  return clock.now() >= deadline ? book.finish('deadline') : book.finish('exhausted', planner.limit());
}

/**
 * The end of a request with no route left to call. When context windows ruled out the rest
 * (docs/concepts.md#context-windows), it stops as `context_length`: with the refusal a model
 * already gave, else with the gateway's own (no model of the chain is large enough for it).
 */
function noRouteLeft(book: AttemptBook, planner: AttemptPlanner, request: RouteRequest): RouteFailure {
  const small = planner.allTooSmall();
  if (!small) return book.finish('exhausted', planner.limit(), planner.capacity());
  book.skip(small, 'context');
  if (book.attempts.some((a) => a.outcome === 'context_length')) return book.finish('stopped');
  return book.refuse(
    new ProviderError({
      provider: 'switchyard',
      model: '',
      failureClass: 'context_length',
      message: `the request (about ${request.contextTokens ?? 0} tokens) is larger than the context window of every model of the chain: ${small.join(', ')}`,
    }),
  );
}

/** Sleeps `ms` through the injected sleep; false when the caller went away meanwhile. */
async function waited(deps: RouterDeps, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await deps.sleep(ms, signal);
    return !signal?.aborted;
  } catch {
    return false;
  }
}
