import {
  DEFAULT_OUTPUT_TOKENS_PER_SEC,
  outputAllowanceMs,
  totalWithOutput,
} from '../failures/output-allowance.js';
import { ProviderError } from '../failures/provider-error.js';
import { toProviderError } from '../failures/to-provider-error.js';
import { timerOfSleep } from '../time.js';
import { type AttemptLimits, abortable, startAttemptDeadline } from './attempt-control.js';
import type { AttemptCall, RouteModel, RouterDeps } from './route-types.js';

/** How one attempt ended: its value (and the signal that still ends it), or its failure. */
export type AttemptOutcome<T> =
  | { ok: true; value: T; signal: AbortSignal; stop: (reason: unknown) => void }
  | { ok: false; error: ProviderError };

/**
 * The route's first-byte and total limits (docs/configuration.md#timeouts), neither past the
 * request's deadline (`leftMs` from now). The total grows by the time the caller's `max_tokens`
 * takes at the route's expected rate (`maxTokens` is set for plain answers only: a stream's
 * attempt ends at its commit). The connect limit is the transport's, `idleMs` the committed
 * stream's.
 */
export function attemptLimits(
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
export async function attempt<T>(
  call: AttemptCall<T>,
  route: RouteModel,
  limits: AttemptLimits,
  deps: RouterDeps,
  caller: AbortSignal | undefined,
): Promise<AttemptOutcome<T>> {
  const time = startAttemptDeadline(
    deps.timer ?? timerOfSleep(deps.sleep),
    () => deps.clock.now(),
    limits,
    caller,
  );
  const options = { signal: time.signal, timeoutMs: limits.totalMs, onFirstByte: time.firstByte };
  try {
    const value = await abortable(call(route.model, options), time.signal);
    return { ok: true, value, signal: time.signal, stop: time.abort };
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
