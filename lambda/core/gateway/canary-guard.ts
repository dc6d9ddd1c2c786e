import { setBounded } from '../bounded-map.js';
import type { BreakerPolicy } from '../breaker/breaker-policy.js';
import { stateScope } from '../catalog/ad-hoc-chains.js';
import type { LedgerEntry, TerminalReason } from '../ledger/ledger-entry.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../time.js';
import type { Target } from './target.js';

/** The samples one canary keeps at most; older ones leave first (the window usually drops them sooner). */
const MAX_SAMPLES = 1000;

/**
 * Whether a canary request's end counts against the canary: every route failed (`exhausted`,
 * `deadline`, a stream cut after output, a last resort). A caller's own error (`stopped`) and a
 * caller who left (`cancelled`) say nothing about the chain and are not counted.
 */
export function canaryOutcome(reason: TerminalReason): 'ok' | 'failed' | undefined {
  if (reason === 'success') return 'ok';
  if (reason === 'stopped' || reason === 'cancelled') return undefined;
  return 'failed';
}

/**
 * The automatic abort of a canary set with `--auto-abort` (docs/design.md#timed-overrides-and-canaries),
 * kept by each container for itself: once the canary's requests in the last `windowMs` number at
 * least `minSamples` and at least `failureRate` of them failed (the pipeline's breaker thresholds),
 * this container sends every request to the stable chain until the canary is replaced. The stored
 * canary is left alone: only an operator writes overrides.
 */
export interface CanaryGuard {
  /** True once the canary that started at `since` has been aborted here. */
  aborted(pipeline: string, since: string): boolean;
  /** Adds one canary request's outcome at `now` (ms); true when this sample aborts the canary. */
  record(pipeline: string, since: string, failed: boolean, now: number, policy: BreakerPolicy): boolean;
}

interface CanaryRecord {
  samples: { at: number; failed: boolean }[];
  aborted: boolean;
}

/**
 * `scopeOf`: the name a pipeline's canary is kept under (default `stateScope`), so the spellings
 * of an override-only pipeline share one record and cannot crowd others out of the bound.
 */
export function createCanaryGuard(scopeOf: (pipeline: string) => string = stateScope): CanaryGuard {
  const canaries = new Map<string, CanaryRecord>();
  const keyOf = (pipeline: string, since: string) => `${scopeOf(pipeline)}\n${since}`;
  return {
    aborted: (pipeline, since) => canaries.get(keyOf(pipeline, since))?.aborted === true,
    record(pipeline, since, failed, now, policy) {
      const key = keyOf(pipeline, since);
      let canary = canaries.get(key);
      if (!canary) {
        canary = { samples: [], aborted: false };
        setBounded(canaries, key, canary);
      }
      if (canary.aborted) return false;
      canary.samples = canary.samples.filter((s) => s.at > now - policy.windowMs).slice(-(MAX_SAMPLES - 1));
      canary.samples.push({ at: now, failed });
      const failures = canary.samples.filter((s) => s.failed).length;
      canary.aborted =
        canary.samples.length >= policy.minSamples && failures / canary.samples.length >= policy.failureRate;
      return canary.aborted;
    },
  };
}

/** What {@link watchCanary} needs from the gateway. */
export interface CanaryWatching {
  guard: CanaryGuard;
  clock: Clock;
  log: Logger;
  /** The pipeline's breaker thresholds. */
  policy(pipeline: string): BreakerPolicy;
}

/**
 * For a request drawn to a canary set with `autoAbort`: an observer of its ledger lines that feeds
 * the request's end to the guard and logs the abort, once, as an ERROR. Undefined otherwise.
 */
export function watchCanary(target: Target, w: CanaryWatching): ((entry: LedgerEntry) => void) | undefined {
  const { canary, pipeline } = target;
  if (target.variant !== 'canary' || !canary?.autoAbort) return undefined;
  return (entry) => {
    const outcome = entry.type === 'request' ? canaryOutcome(entry.reason) : undefined;
    if (outcome === undefined) return;
    const policy = w.policy(pipeline);
    if (!w.guard.record(pipeline, canary.since, outcome === 'failed', w.clock.now(), policy)) return;
    w.log.error('canary aborted automatically in this container', {
      pipeline,
      canary: canary.chain,
      since: canary.since,
      failureRate: policy.failureRate,
      action: `switchyard chain abort ${pipeline}`,
    });
  };
}
