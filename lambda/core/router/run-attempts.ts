import { FAILURE_POLICY } from '../failures/failure-class.js';
import {
  DEFAULT_OUTPUT_TOKENS_PER_SEC,
  outputAllowanceMs,
  totalWithOutput,
} from '../failures/output-allowance.js';
import { ProviderError } from '../failures/provider-error.js';
import { SchemaInvalidError } from '../failures/schema-invalid-error.js';
import { toProviderError } from '../failures/to-provider-error.js';
import { AttemptBook } from './attempt-book.js';
import { type AttemptLimits, abortable, startAttemptDeadline } from './attempt-control.js';
import { createAttemptPlanner, type PlannedAttempt } from './next-attempt.js';
import type {
  AttemptCall,
  RouteModel,
  RouteRequest,
  RouteResult,
  RouterDeps,
  RouteSuccess,
  Settlement,
} from './route-types.js';

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
): Promise<RouteResult<T>> {
  const { clock } = deps;
  const { policy, signal } = request;
  const startedAt = clock.now();
  const deadline = startedAt + policy.deadlineMs;
  const book = new AttemptBook(request, deps, startedAt);
  const planner = createAttemptPlanner(request, deps);
  // Attempts that reached (or tried to reach) an upstream: local failures do not use up the budget.
  let sent = 0;
  // A structured-output repair that goes back to the model that answered wrongly.
  let repeat: PlannedAttempt | undefined;

  for (let n = 1; sent < policy.maxAttempts; n++) {
    if (signal?.aborted) return book.finish('cancelled');
    if (clock.now() >= deadline) return book.finish('deadline');
    const planned = repeat ? retryOf(repeat, n) : await planner.next(n);
    repeat = undefined;
    if (!planned) return book.finish('exhausted', planner.limit(), planner.capacity());
    // The breaker read may have taken the rest of the budget: no attempt without time to run it.
    if (clock.now() >= deadline) {
      planned.lease?.release();
      return book.finish('deadline');
    }

    const startedAttemptAt = clock.now();
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
      book.commit(planned);
      return committed(outcome.value, outcome.signal, planned, startedAttemptAt, book);
    }
    const { error } = outcome;
    const usage = error instanceof SchemaInvalidError ? error.usage : undefined;
    await book.record({ ...planned, startedAt: startedAttemptAt, phase: 'before_output', error, usage });
    const local = FAILURE_POLICY[error.failureClass].local;
    if (error instanceof SchemaInvalidError && error.repairSameModel) repeat = planned;
    else planner.failed(planned.routeKey, local);
    if (local) continue;
    sent += 1;
    if (error.failureClass === 'cancelled') return book.finish('cancelled');
    const fallsBack =
      FAILURE_POLICY[error.failureClass].fallback ||
      (error.failureClass === 'context_length' && policy.fallbackOnContextLength);
    if (!fallsBack) return book.finish('stopped');
  }
  return clock.now() >= deadline ? book.finish('deadline') : book.finish('exhausted', planner.limit());
}

/** Attempt `n` on the model of `planned` again (docs/design.md#structured-output: a repair on the same model). */
function retryOf({ route, routeKey, record }: PlannedAttempt, n: number): PlannedAttempt {
  const { tier, model, provider } = record;
  return {
    route,
    routeKey,
    record: {
      attempt: n,
      tier,
      model,
      provider,
      action: 'retry',
      step: 'retry',
      outcome: 'ok',
      status: 200,
      latencyMs: 0,
    },
  };
}

type AttemptOutcome<T> = { ok: true; value: T; signal: AbortSignal } | { ok: false; error: ProviderError };

/**
 * The route's first-byte and total limits (docs/configuration.md#timeouts), neither past the
 * request's deadline (`leftMs` from now). The total grows by the time the caller's `max_tokens`
 * takes at the route's expected rate (`maxTokens` is set for plain answers only: a stream's
 * attempt ends at its commit). The connect limit is the transport's, `idleMs` the committed
 * stream's.
 */
function attemptLimits(
  { timeouts }: RouteModel,
  leftMs: number,
  maxTokens: number | undefined,
): AttemptLimits {
  const rate = timeouts.outputTokensPerSec ?? DEFAULT_OUTPUT_TOKENS_PER_SEC;
  const allowanceMs = outputAllowanceMs(maxTokens, rate);
  return {
    firstByteMs: Math.min(timeouts.firstByteMs, leftMs),
    totalMs: Math.min(totalWithOutput(timeouts, allowanceMs), leftMs),
    allowanceMs,
  };
}

/**
 * One call under the attempt's one timer (`limits`, linked with the caller's `signal`); the call
 * reports its first byte through `onFirstByte`. Whatever it throws comes back as a `ProviderError`.
 */
async function attempt<T>(
  call: AttemptCall<T>,
  route: RouteModel,
  limits: AttemptLimits,
  deps: RouterDeps,
  caller: AbortSignal | undefined,
): Promise<AttemptOutcome<T>> {
  const time = startAttemptDeadline(deps.sleep, () => deps.clock.now(), limits, caller);
  const options = { signal: time.signal, timeoutMs: limits.totalMs, onFirstByte: time.firstByte };
  try {
    const value = await abortable(call(route.model, options), time.signal);
    return { ok: true, value, signal: time.signal };
  } catch (thrown) {
    // A conforming model already turned its error into a ProviderError, judged by this same
    // signal; anything else (a model that ignored its signal, or broke its contract) is turned here.
    if (thrown instanceof ProviderError) return { ok: false, error: thrown };
    const { provider, key } = route.model;
    const failed = { provider, model: key, signal: time.signal, nowMs: deps.clock.now() };
    return { ok: false, error: toProviderError(thrown, failed) };
  } finally {
    // After the commit only the caller ends a stream (and the SSE idle timer watches its silence).
    time.stopTimer();
  }
}

/** The answer of a committed attempt; `settle` records it once the answer (or stream) has ended. */
function committed<T>(
  value: T,
  signal: AbortSignal,
  { record, route, routeKey, lease }: PlannedAttempt,
  startedAt: number,
  book: AttemptBook,
): RouteSuccess<T> {
  let settled = false;
  return {
    ok: true,
    value,
    model: record.model,
    provider: record.provider,
    attempts: book.attempts,
    route: book.route(),
    idleMs: route.timeouts.idleMs,
    signal,
    async settle(settlement: Settlement) {
      if (settled) return;
      settled = true;
      lease?.release();
      const error = 'error' in settlement ? settlement.error : undefined;
      await book.record({
        record,
        route,
        routeKey,
        startedAt,
        phase: 'after_output',
        error,
        usage: settlement.usage,
      });
    },
  };
}
