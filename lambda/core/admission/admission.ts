import type { AdmissionSettings, StoreFailurePolicy } from '../catalog/admission-config-schema.js';
import type { Clock } from '../time.js';
import type { AdmissionStore } from './admission-store.js';
import { type LimitKind, NANO_PER_USD, type PlannedLimit, plannedLimits } from './limit-plan.js';
import { readUsage, type UsageLine } from './read-usage.js';
import { estimateReservation, type Reservation, type ReservationInput } from './reservation-estimate.js';
import { type Hold, takeLimit } from './take-limit.js';

/** A store call of admission failed; `policy` says what admission did about it. */
export interface AdmissionStoreFailure {
  kind: LimitKind;
  policy: StoreFailurePolicy;
  /** `admit` or `settle`. */
  phase: 'admit' | 'settle';
  error: unknown;
}

export interface AdmissionDeps {
  store: AdmissionStore;
  clock: Clock;
  /** The settings in force (config, or its SSM override in AWS), read per request. */
  settings: () => Promise<AdmissionSettings>;
  /** Called once per failed store call: the count operators watch. */
  onStoreFailure: (failure: AdmissionStoreFailure) => void;
  /**
   * Hears how full a spend cap is after each admission (0–1, reservations in flight included),
   * and 1 when a request is refused for budget: what the budget warnings watch (per scope kind and per cap).
   */
  onSpendUse?: ((limit: PlannedLimit, share: number) => void) | undefined;
}

/** Who asks and for what. */
export interface AdmissionRequest {
  /** The caller key's name; undefined while authentication is off. */
  keyName: string | undefined;
  /** The pipeline whose limits apply (`adhoc` for every ad-hoc chain); undefined: none. */
  pipeline: string | undefined;
  reservation: ReservationInput;
}

/** An admitted request's reservations, settled once when it ends. */
export interface Ticket {
  holds: Hold[];
  reserved: Reservation;
  /** US$ left under the tightest spend limit after this reservation; undefined when none applies. */
  budgetRemainingUsd: number | undefined;
}

/** Why a request was refused: a limit without room (`rate`/`budget`), or a fail-closed store (`unavailable`). */
export interface Refusal {
  reason: 'rate' | 'budget' | 'unavailable';
  limit: PlannedLimit;
  /** When the limit has room again, in ms since the epoch. */
  resetAt: number;
}

export type AdmissionOutcome = { ok: true; ticket: Ticket } | { ok: false; refusal: Refusal };

/** What a finished request really used, over all its attempts. */
export interface ActualUse {
  tokens: number;
  costNano: number;
}

export interface Admission {
  /** Reserves the request under every limit that applies, or refuses it and reserves nothing. */
  admit(request: AdmissionRequest): Promise<AdmissionOutcome>;
  /** Replaces each reservation by the actual use (0 releases it): one write per token or spend limit. */
  settle(ticket: Ticket, actual: ActualUse): Promise<void>;
  /** What each limit of the key and/or pipeline holds (spend of `day`, default today). Store errors propagate. */
  usage(keyName: string | undefined, pipeline: string | undefined, day?: string): Promise<UsageLine[]>;
}

/** Retry after a fail-closed store failure, in ms. */
const UNAVAILABLE_RETRY_MS = 1_000;

const amountFor = (limit: PlannedLimit, r: Reservation) =>
  limit.kind === 'requests' ? 1 : limit.kind === 'tokens' ? r.tokens : r.costNano;

function remainingUsd(holds: readonly Hold[]): number | undefined {
  const spend = holds.filter((h) => h.limit.kind === 'spend');
  if (spend.length === 0) return undefined;
  return Math.max(0, Math.min(...spend.map((h) => h.limit.cap - h.after))) / NANO_PER_USD;
}

/** One limit's answer to a request. */
type LimitOutcome =
  | { type: 'held'; hold: Hold }
  | { type: 'full'; limit: PlannedLimit; resetAt: number }
  | { type: 'skipped' }
  | { type: 'unavailable'; limit: PlannedLimit };

/** The first refusal among the limits' answers, if any. */
function firstRefusal(outcomes: readonly LimitOutcome[], now: number): Refusal | undefined {
  for (const o of outcomes) {
    if (o.type === 'full')
      return { reason: o.limit.kind === 'spend' ? 'budget' : 'rate', limit: o.limit, resetAt: o.resetAt };
  }
  for (const o of outcomes) {
    if (o.type === 'unavailable')
      return { reason: 'unavailable', limit: o.limit, resetAt: now + UNAVAILABLE_RETRY_MS };
  }
  return undefined;
}

export function createAdmission(deps: AdmissionDeps): Admission {
  const { store, clock, settings } = deps;

  const report = async (kind: LimitKind, phase: AdmissionStoreFailure['phase'], error: unknown) => {
    const policy = (await settings()).onStoreFailure[kind];
    deps.onStoreFailure({ kind, policy, phase, error });
    return policy;
  };

  const giveBack = async (holds: readonly Hold[], deltaOf: (h: Hold) => number) => {
    await Promise.all(
      holds.map(async (h) => {
        const delta = deltaOf(h);
        if (delta === 0) return;
        try {
          await store.add(h.slot, delta);
        } catch (error) {
          await report(h.limit.kind, 'settle', error);
        }
      }),
    );
  };

  const outcomeOf = async (limit: PlannedLimit, amount: number, now: number): Promise<LimitOutcome> => {
    try {
      const taken = await takeLimit(store, limit, amount, now);
      return taken.ok ? { type: 'held', hold: taken.hold } : { type: 'full', limit, resetAt: taken.resetAt };
    } catch (error) {
      return (await report(limit.kind, 'admit', error)) === 'open'
        ? { type: 'skipped' }
        : { type: 'unavailable', limit };
    }
  };

  return {
    async admit(request) {
      const current = await settings();
      const limits = plannedLimits(current, request.keyName, request.pipeline);
      const reserved = estimateReservation(request.reservation, current.charsPerToken);
      const now = clock.now();
      // In parallel: admission costs one round trip, not one per limit; a refusal gives back the rest.
      const outcomes = await Promise.all(limits.map((l) => outcomeOf(l, amountFor(l, reserved), now)));
      const holds = outcomes.flatMap((o) => (o.type === 'held' ? [o.hold] : []));
      const refusal = firstRefusal(outcomes, now);
      if (refusal) {
        await giveBack(holds, (h) => -h.amount);
        if (refusal.reason === 'budget') deps.onSpendUse?.(refusal.limit, 1);
        return { ok: false, refusal };
      }
      for (const h of holds) if (h.limit.kind === 'spend') deps.onSpendUse?.(h.limit, h.after / h.limit.cap);
      return { ok: true, ticket: { holds, reserved, budgetRemainingUsd: remainingUsd(holds) } };
    },
    async usage(keyName, pipeline, day) {
      const limits = plannedLimits(await settings(), keyName, pipeline);
      return readUsage(store, limits, clock.now(), day);
    },
    settle: (ticket, actual) =>
      giveBack(ticket.holds, (h) =>
        h.limit.kind === 'requests'
          ? 0
          : (h.limit.kind === 'tokens' ? actual.tokens : actual.costNano) - h.amount,
      ),
  };
}
