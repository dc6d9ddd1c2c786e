import { type BreakerSnapshot, isCooling, isOpen } from '../breaker/breaker-state.js';
import type { Usage } from '../chat/chat-model.js';
import { FAILURE_POLICY, type FailureClass } from '../failures/failure-class.js';
import type { ProviderError } from '../failures/provider-error.js';
import { addUsage, costOf } from '../ledger/cost.js';
import type { AttemptAction, AttemptPhase, LedgerEntry, TerminalReason } from '../ledger/ledger-entry.js';
import { type AttemptControl, abortable, startAttempt, toProviderError } from './attempt-control.js';
import type {
  AttemptCall,
  AttemptRecord,
  RouteFailure,
  RouteModel,
  RouteRequest,
  RouteResult,
  RouterDeps,
  RouteSuccess,
  Settlement,
} from './route-types.js';
import { selectModel } from './select-model.js';

/**
 * The attempt loop of SPEC §6: retry and fallback are one loop. Every attempt selects afresh
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
  const { clock, breakers } = deps;
  // Evidence must never cost the caller the answer: a sink that throws (a full disk) is ignored here.
  const ledger = (entry: LedgerEntry) => {
    try {
      deps.ledger(entry);
    } catch {
      // the sink reports its own failures
    }
  };
  const { requestId, pipeline, policy, signal } = request;
  const startedAt = clock.now();
  const deadline = startedAt + policy.deadlineMs;
  const attempts: AttemptRecord[] = [];
  const failed = new Set<string>();
  const trail: string[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let cost = 0;
  let lastError: ProviderError | undefined;

  const writeAttempt = (
    record: AttemptRecord,
    route: RouteModel,
    phase: AttemptPhase,
    attemptUsage?: Usage,
  ) => {
    const attemptCost = costOf(attemptUsage, route.price);
    usage = addUsage(usage, attemptUsage);
    cost += attemptCost ?? 0;
    ledger({
      type: 'attempt',
      requestId,
      pipeline,
      ...record,
      phase,
      usage: attemptUsage,
      costUsd: attemptCost,
    });
  };

  const writeRequest = (reason: TerminalReason, model?: string, failureClass?: FailureClass) =>
    ledger({
      type: 'request',
      requestId,
      pipeline,
      reason,
      attempts: attempts.length,
      model,
      route: trail.join(','),
      failureClass,
      latencyMs: clock.now() - startedAt,
      usage,
      costUsd: cost,
      stream: request.stream,
    });

  const finish = (reason: RouteFailure['reason']): RouteFailure => {
    writeRequest(reason, undefined, lastError?.failureClass);
    return { ok: false, reason, attempts, route: trail.join(','), error: lastError };
  };

  const succeed = (
    value: T,
    record: AttemptRecord,
    route: RouteModel,
    control: AttemptControl,
    startedAttemptAt: number,
  ) => {
    attempts.push(record);
    trail.push(`${record.model}:200`);
    let settled = false;
    const success: RouteSuccess<T> = {
      ok: true,
      value,
      model: record.model,
      provider: record.provider,
      attempts,
      route: trail.join(','),
      timeoutMs: route.timeoutMs,
      signal: control.signal,
      async settle(settlement: Settlement) {
        if (settled) return;
        settled = true;
        control.release();
        record.latencyMs = clock.now() - startedAttemptAt;
        const failure = 'error' in settlement ? settlement.error : undefined;
        if (failure) {
          lastError = failure;
          record.outcome = failure.failureClass;
          record.status = failure.status;
          trail[trail.length - 1] = `${record.model}:${failure.status ?? failure.failureClass}`;
        }
        writeAttempt(record, route, 'after_output', settlement.usage);
        const reason = !failure ? 'success' : failure.failureClass === 'cancelled' ? 'cancelled' : 'partial';
        writeRequest(reason, record.model, failure?.failureClass);
        if (failure && FAILURE_POLICY[failure.failureClass].local) return;
        await breakers.record(pipeline, record.model, {
          at: clock.now(),
          outcome: failure?.failureClass ?? 'ok',
        });
      },
    };
    return success;
  };

  // A member not in the catalog can never be called, nor one found not configured in this
  // request (no key): leave them out of every selection.
  const unconfigured = new Set<string>();
  // Each callable tier keeps its position in the chain: the ledger's `tier` is the chain's.
  const callableTiers = () =>
    request.tiers
      .map((tier, index) => ({
        members: tier.members.filter((m) => !unconfigured.has(m.key) && deps.models(m.key) !== undefined),
        number: index + 1,
      }))
      .filter((tier) => tier.members.length > 0);
  let tiers = callableTiers();
  // Attempts that reached (or tried to reach) an upstream: local failures do not use up the budget.
  let sent = 0;
  // A local failure writes nothing to the store, so the state read before it is still current.
  let snapshots: Map<string, BreakerSnapshot> | undefined;

  for (let n = 1; sent < policy.maxAttempts; n++) {
    if (signal?.aborted) return finish('cancelled');
    if (clock.now() >= deadline) return finish('deadline');

    snapshots ??= await breakers.read(pipeline);
    const current = snapshots;
    const now = clock.now();
    const selection = selectModel(
      tiers,
      {
        isBlocked: (key) => {
          const s = current.get(key);
          return s !== undefined && (isOpen(s, now) || isCooling(s, now));
        },
        hasFailed: (key) => failed.has(key),
      },
      deps.random,
    );
    const route = selection && deps.models(selection.key);
    if (!selection || !route) return finish('exhausted');

    const previous = attempts[attempts.length - 1];
    const action: AttemptAction = selection.failOpen
      ? 'fail-open'
      : !previous
        ? 'first'
        : previous.model === selection.key
          ? 'retry'
          : 'fallback';
    // The breaker read may have taken the rest of the budget: no attempt without time to run it.
    if (clock.now() >= deadline) return finish('deadline');
    const timeoutMs = Math.min(route.timeoutMs, deadline - clock.now());
    const startedAttemptAt = clock.now();
    const control = startAttempt(deps.sleep, timeoutMs, signal);
    const record: AttemptRecord = {
      attempt: n,
      tier: tiers[selection.tier]?.number ?? selection.tier + 1,
      model: selection.key,
      provider: route.model.provider,
      action,
      outcome: 'ok',
      status: 200,
      latencyMs: 0,
    };

    try {
      const value = await abortable(call(route.model, { signal: control.signal, timeoutMs }), control.signal);
      // A committed stream may legitimately outlast the attempt timeout; only the caller ends it now.
      control.stopTimer();
      return succeed(value, record, route, control, startedAttemptAt);
    } catch (thrown) {
      control.stopTimer();
      control.release();
      const error = toProviderError(thrown, route, clock.now(), control.cause(), timeoutMs);
      lastError = error;
      Object.assign(record, {
        outcome: error.failureClass,
        status: error.status,
        retryAfterMs: error.retryAfterMs,
        latencyMs: clock.now() - startedAttemptAt,
      });
      attempts.push(record);
      trail.push(`${record.model}:${error.status ?? error.failureClass}`);
      writeAttempt(record, route, 'before_output');
      failed.add(record.model);
      if (FAILURE_POLICY[error.failureClass].local) {
        // This process's configuration, not the upstream's health: nothing for the shared store.
        unconfigured.add(record.model);
        tiers = callableTiers();
        continue;
      }
      sent += 1;
      snapshots = undefined;
      await breakers.record(pipeline, record.model, {
        at: clock.now(),
        outcome: error.failureClass,
        retryAfterMs: error.retryAfterMs,
      });
      if (error.failureClass === 'cancelled') return finish('cancelled');
      const fallsBack =
        FAILURE_POLICY[error.failureClass].fallback ||
        (error.failureClass === 'context_length' && policy.fallbackOnContextLength);
      if (!fallsBack) return finish('stopped');
    }
  }
  return finish(clock.now() >= deadline ? 'deadline' : 'exhausted');
}
