import { FAILURE_POLICY, isRouteSample } from '../failures/failure-class.js';
import type { ProviderError } from '../failures/provider-error.js';
import type { RouteSignals } from './route-signals.js';

/**
 * The attempt loop's hooks into this container's route signals (docs/concepts.md#selection-strategies):
 * one more in flight when an attempt starts; at its end (a failure, or a plain answer, or a stream's
 * commit) a sample; one fewer in flight when it is over (a committed stream: when it settles).
 */
export function attemptSignals(signals: RouteSignals | undefined, routeKey: string) {
  signals?.started(routeKey);
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    signals?.finished(routeKey);
  };
  return {
    /** The answer (or a stream's first event) came after `latencyMs`: a success with its latency. */
    answered(latencyMs: number): void {
      signals?.observe(routeKey, { ok: true, latencyMs });
    },
    /**
     * The attempt failed after `latencyMs`. Only a failure that counts against the route (as in its
     * breaker) is a sample; only a timeout's latency says how slow the route is.
     */
    failed(error: ProviderError, latencyMs: number): void {
      finish();
      if (!isRouteSample(error) || !FAILURE_POLICY[error.failureClass].countsInBreaker) return;
      signals?.observe(routeKey, {
        ok: false,
        latencyMs: error.failureClass === 'timeout' ? latencyMs : undefined,
      });
    },
    /** The attempt is over: its answer was delivered or its stream ended. */
    finish,
  };
}
