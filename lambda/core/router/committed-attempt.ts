/**
 * A committed attempt (docs/design.md#streaming-commit) and, for a stream whose pipeline allows
 * it, its continuation after a break (docs/concepts.md#streams-cut-after-output): the broken
 * attempt is settled and billed on its own line, then routes that take an assistant prefill are
 * tried, one attempt each, under the request's deadline and attempt budget, until one commits.
 */

import { isCooling } from '../breaker/breaker-state.js';
import { routeAccess } from '../breaker/recovery.js';
import { isRouteCooling } from '../breaker/route-cooling.js';
import { FAILURE_POLICY } from '../failures/failure-class.js';
import type { AttemptBook } from './attempt-book.js';
import { capacityGate } from './capacity-gate.js';
import type { PlannedAttempt } from './next-attempt.js';
import { attempt, attemptLimits } from './one-attempt.js';
import type {
  AttemptCall,
  AttemptRecord,
  RouteModel,
  RouteRequest,
  RouterDeps,
  RouteSuccess,
  Settlement,
  StreamBreak,
} from './route-types.js';
import {
  type AfterOutputPolicy,
  type ContinuedLabel,
  continuationRoutes,
  refuseContinuation,
} from './stream-continuation.js';

/** How a stream is continued: the call that asks a route to continue `text` (the prefill). */
export interface Continuation<T> {
  call(text: string): AttemptCall<T>;
}

/** The attempt loop's state a committed attempt keeps: a continuation spends from the same budget. */
export interface LoopState<T> {
  request: RouteRequest;
  deps: RouterDeps;
  book: AttemptBook;
  /** The request's deadline, ms since the epoch. */
  deadline: number;
  /** Attempts that reached an upstream so far (the budget is `policy.maxAttempts`). */
  sent: number;
  continuation?: Continuation<T> | undefined;
  /** Output tokens the caller received from the attempts that broke before this one. */
  deliveredTokens?: number | undefined;
}

/**
 * The answer of a committed attempt; `settle` records it once the answer (or stream) has ended.
 * `over` is called once when it has (the route's in-flight count for selection signals).
 */
export function committed<T>(
  loop: LoopState<T>,
  outcome: { value: T; signal: AbortSignal; stop: (reason: unknown) => void },
  planned: PlannedAttempt,
  startedAt: number,
  label?: ContinuedLabel,
  over: () => void = () => {},
): RouteSuccess<T> {
  const { book } = loop;
  const { record, route, routeKey } = planned;
  let settled = false;
  const once = () => {
    if (settled) return false;
    settled = true;
    return true;
  };
  const ended = { record, route, routeKey, startedAt, phase: 'after_output' as const };
  const afterOutput = loop.request.policy.afterOutput ?? 'error';
  const { continuation } = loop;
  return {
    ok: true,
    value: outcome.value,
    model: record.model,
    provider: record.provider,
    attempts: book.attempts,
    route: book.route(),
    idleMs: route.timeouts.idleMs,
    signal: outcome.signal,
    stop: outcome.stop,
    ...(label ? { continued: label } : {}),
    async settle(settlement: Settlement) {
      if (!once()) return;
      over();
      const error = 'error' in settlement ? settlement.error : undefined;
      await book.record({
        ...ended,
        error,
        usage: settlement.usage,
        usageEstimated: settlement.usageEstimated,
      });
    },
    ...(continuation && afterOutput !== 'error'
      ? {
          async resume(broken: StreamBreak) {
            if (!once()) return undefined;
            over();
            const { error, usage, usageEstimated } = broken;
            const needs = loop.request.needs;
            if (refuseContinuation(afterOutput, error.failureClass, broken, needs) !== undefined) {
              await book.record({ ...ended, error, usage, usageEstimated });
              return undefined;
            }
            const atToken = (loop.deliveredTokens ?? 0) + usage.outputTokens;
            await book.record({ ...ended, error, usage, usageEstimated, cutAt: atToken });
            loop.deliveredTokens = atToken;
            const next = await continueStream(loop, planned, broken.text, afterOutput, continuation);
            if (!next) book.endBroken(error);
            return next;
          },
        }
      : {}),
  };
}

/**
 * Tries the routes that may continue the stream `from` broke, in order, until one commits; skips
 * (and lists in the trail) routes that take no prefill, routes whose breaker or account route
 * blocks them now, and routes at their bulkhead or declared quota (`!<route>:full`,
 * `!<route>:quota`: never waited for). A continuation attempt holds its in-flight slot and quota
 * reservation like any attempt. Undefined when none committed within the budget and the deadline.
 */
async function continueStream<T>(
  loop: LoopState<T>,
  from: PlannedAttempt,
  text: string,
  policy: Exclude<AfterOutputPolicy, 'error'>,
  continuation: Continuation<T>,
): Promise<RouteSuccess<T> | undefined> {
  const { request, deps, book } = loop;
  const candidates = continuationRoutes(
    policy,
    request.tiers,
    { model: from.record.model, route: from.routeKey },
    {
      routesOf: (model) => deps.routesOf?.(model) ?? [model],
      takesPrefill: (route) => deps.models(route)?.prefill === true,
    },
  );
  book.skip(candidates.noPrefill, 'prefill');
  if (candidates.routes.length === 0) return undefined;
  const blocked = await blockedNow(request.pipeline, candidates.routes, deps);
  const capacity = capacityGate(deps, request.tokenEstimate ?? 0);
  // Routes refused for capacity that no continuation attempt reported: the trail still shows them.
  const ended = () => {
    book.passOver(capacity.drainSkipped());
    return undefined;
  };
  for (const { model, route: routeKey } of candidates.routes) {
    if (loop.sent >= request.policy.maxAttempts || request.signal?.aborted) return ended();
    if (deps.clock.now() >= loop.deadline) return ended();
    const route = deps.models(routeKey);
    if (!route || blocked(routeKey)) continue;
    const lease = await capacity.take(routeKey);
    if (!lease) continue;
    // The store call may have taken the rest of the budget: no attempt without time to run it.
    const startedAt = deps.clock.now();
    if (startedAt >= loop.deadline) {
      lease.release();
      return ended();
    }
    const label = { from: from.routeKey, atToken: loop.deliveredTokens ?? 0, by: routeKey };
    const record = continuationRecord(
      book.attempts.length + 1,
      request,
      { model, routeKey },
      route,
      from,
      label,
    );
    const skipped = capacity.drainSkipped();
    if (skipped.length > 0) record.skipped = skipped;
    const planned: PlannedAttempt = { route, routeKey, record, lease };
    const limits = attemptLimits(route, loop.deadline - startedAt, undefined);
    const outcome = await attempt(continuation.call(text), route, limits, deps, request.signal);
    loop.sent += 1;
    if (outcome.ok) {
      book.commit(planned, label);
      return committed(loop, outcome, planned, startedAt, label, () => lease.release());
    }
    lease.release();
    await book.record({ ...planned, startedAt, phase: 'before_output', error: outcome.error });
    // A refusal (a 400 to the prefill) or the caller leaving ends the continuation, never the original error.
    if (!FAILURE_POLICY[outcome.error.failureClass].fallback) return ended();
  }
  return ended();
}

/** The record of a continuation attempt: the same route again is a `retry`, any other a `fallback`. */
function continuationRecord(
  n: number,
  request: RouteRequest,
  { model, routeKey }: { model: string; routeKey: string },
  route: RouteModel,
  from: PlannedAttempt,
  label: ContinuedLabel,
): AttemptRecord {
  const same = routeKey === from.routeKey;
  return {
    attempt: n,
    tier: request.tiers.findIndex((t) => t.members.some((m) => m.key === model)) + 1,
    model,
    provider: route.model.provider,
    action: same ? 'retry' : 'fallback',
    step: same ? 'retry' : model === from.record.model ? 'route' : 'substitute',
    outcome: 'ok',
    status: 200,
    latencyMs: 0,
    continuation: { from: label.from, atToken: label.atToken },
  };
}

/** Which of `routes` the pipeline's breakers or their account routes block now (one store round trip). */
async function blockedNow(
  pipeline: string,
  routes: readonly { route: string }[],
  deps: RouterDeps,
): Promise<(route: string) => boolean> {
  const [snapshots, cooling] = await Promise.all([
    deps.breakers.read(pipeline),
    deps.breakers.routeCooling(routes.map((r) => r.route)),
  ]);
  const now = deps.clock.now();
  return (route) => {
    const s = snapshots.get(route);
    const access = s === undefined ? 'closed' : routeAccess(s, now).kind;
    // An open breaker (or one whose probe slot is another request's) and a cooling route are passed over.
    const own = access === 'blocked' || access === 'probe' || (s !== undefined && isCooling(s, now));
    return own || isRouteCooling(cooling.get(route), now);
  };
}
