import type { BreakerEvents, BreakerOpened, BreakerRecovering } from '../core/breaker/breakers.js';
import type { Logger } from '../core/logger.js';

/** One "breaker opened" line: ERROR when a person must act (our credential, a retired model), else WARN. */
export function logBreakerOpened(log: Logger, event: BreakerOpened): void {
  const fields = {
    pipeline: event.pipeline,
    model: event.model,
    reason: event.reason,
    openUntil: new Date(event.openUntil).toISOString(),
    recovery: event.recovery,
    alert: event.alert,
  };
  if (event.alert) log.error('breaker opened: route quarantined, check its credentials or model id', fields);
  else log.warn('breaker opened', fields);
}

/**
 * One line per step of a `ramp` breaker's return (docs/concepts.md#breaker-recovery), from the one
 * writer that took it: `breaker probe` when a probe slot is claimed, `breaker ramping` when the
 * ramp starts.
 */
export function logBreakerRecovering(log: Logger, event: BreakerRecovering): void {
  const until = new Date(event.until).toISOString();
  const { pipeline, model } = event;
  if (event.phase === 'ramp') log.info('breaker ramping', { pipeline, model, rampUntil: until });
  else log.info('breaker probe', { pipeline, model, nextProbeAt: until });
}

/** Breaker events as log lines; `onOpened` may add more (a metric in Lambda). */
export function breakerLogEvents(
  log: Logger,
  onOpened: (event: BreakerOpened) => void = (e) => logBreakerOpened(log, e),
): BreakerEvents {
  return {
    onOpened,
    onRecovery: (event) => logBreakerRecovering(log, event),
    onStoreError: (operation, error) =>
      log.warn('breaker store failed; routing on what this process knows', {
        operation,
        error: error instanceof Error ? error.name : String(error),
        // `ECONNREFUSED`, `ThrottlingException`…: the name alone is often just `Error`.
        detail: error instanceof Error ? error.message.slice(0, 200) : undefined,
      }),
  };
}
