import type { AccountProbeGate } from './account-probe-gate.js';
import type { BreakerSnapshot } from './breaker-state.js';
import type { BreakersOptions } from './breakers.js';
import { applyProbeClaim } from './recovery.js';

/**
 * Claims a probe slot in the store (or, on a store error, for this process only) and reports the
 * winner's; first the account route's probe gate, shared by every pipeline that reaches the route.
 */
export async function claimProbeSlot(
  { store, clock, policyFor, events = {} }: BreakersOptions,
  gate: AccountProbeGate,
  known: BreakerSnapshot | undefined,
  remember: (pipeline: string, model: string, snapshot: BreakerSnapshot) => void,
  { pipeline, model, slot }: { pipeline: string; model: string; slot: number },
): Promise<boolean> {
  const policy = policyFor(pipeline);
  const entered = await gate.enter(pipeline, model, known?.openedAt, policy);
  if (entered === 'held') return false;
  const now = clock.now();
  // The account route's gate, taken in the store, already makes this the one probe across every
  // pipeline and container: the breaker's own claim would be a second write for nothing.
  let won = entered === 'taken';
  if (!won) {
    try {
      won = await store.claimProbe(pipeline, model, { now, slot, policy });
    } catch (error) {
      events.onStoreError?.('probe', error);
      won = true; // only this process can know; one probe per slot per process
    }
  }
  if (!won) {
    await gate.leave(pipeline, model, policy);
    return false;
  }
  if (known) remember(pipeline, model, applyProbeClaim(known, now, policy));
  events.onRecovery?.({ pipeline, model, phase: 'probing', at: now, until: now + policy.probeLeaseMs });
  return true;
}
