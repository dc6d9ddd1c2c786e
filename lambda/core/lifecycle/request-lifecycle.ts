/**
 * The one request lifecycle, written once for every front door and for the jobs runner:
 * **bounds** (what the request asks is within the config's `limits`) → **resolve target** (the
 * pipeline or chain it names, whether this caller may send it, whether its models serve this
 * kind of request, whether they allow its output bound) → **admit** (reserve under the caller
 * key's and pipeline's limits) → **route** (the gateway's attempt loop) → **settle** (the
 * reservation is settled with the real use from the ledger). Typed on the neutral request: a
 * door measures its body into a {@link RequestDemand} and says what it serves; how a refusal is
 * worded on the wire is the door's business.
 */
import type { Admission, Refusal, Ticket } from '../admission/admission.js';
import { chainReservation } from '../admission/chain-reservation.js';
import { type AdHocRefusal, stateScope } from '../catalog/ad-hoc-chains.js';
import type { Catalog } from '../catalog/catalog.js';
import {
  type BoundViolation,
  checkMessageCount,
  checkOutputTokens,
  echoable,
  type RequestBounds,
} from '../chat/request-bounds.js';
import { chainUse } from '../embeddings/embedding-space.js';
import type { Gateway } from '../gateway/gateway.js';
import type { Target } from '../gateway/target.js';
import type { RequestDemand } from './request-demand.js';

/** What a request is for: chat (every chat door, jobs) or embeddings; its target's models must serve it. */
export type RequestUse = 'chat' | 'embeddings';

/** Why this caller (its key name; undefined while authentication is off) may not run this target, or undefined. */
export type AdHocGate = (keyName: string | undefined, target: Target) => Promise<AdHocRefusal | undefined>;

/** One request as the lifecycle sees it, whichever door it came through. */
export interface LifecycleCall {
  /** The body's pipeline or chain (`model`), if it named one. */
  model: string | undefined;
  /** The `x-switchyard-pipeline` header, if sent. */
  headerPipeline?: string | undefined;
  /** The caller key's name; undefined while caller authentication is off. */
  keyName: string | undefined;
  use: RequestUse;
  demand: RequestDemand;
}

/** Why the lifecycle stopped a request before any upstream call; each door words it its own way. */
export type LifecycleRefusal =
  /** Over a bound of `limits` (messages, output tokens). */
  | { kind: 'over_bound'; violation: BoundViolation }
  /** The model or header names nothing routable. */
  | { kind: 'unknown_target'; message: string; param: string }
  /** The caller may not send this ad-hoc chain (`admission.adHocChains`). */
  | { kind: 'ad_hoc_refused'; message: string }
  /** The target's models do not serve this kind of request. */
  | { kind: 'wrong_use'; message: string }
  /** Admission refused it (a rate, a spend cap, a fail-closed store). */
  | { kind: 'admission'; refusal: Refusal };

export type LifecycleStep<T> = { ok: true; value: T } | { ok: false; refusal: LifecycleRefusal };

/** What the lifecycle needs. */
export interface LifecycleDeps {
  gateway: Pick<Gateway, 'resolveTarget'>;
  catalog: Catalog;
  bounds: RequestBounds;
  /** Which ad-hoc chains each caller may send (`admission.adHocChains`). Absent: every one. */
  adHocChains?: AdHocGate | undefined;
  /** The admission service. Absent: every request is admitted and nothing is reserved. */
  admission?: Admission | undefined;
}

/** The lifecycle's steps before routing; routing and settling are the gateway's and the meter's. */
export interface RequestLifecycle {
  /** Bounds that need no target: the number of messages. */
  bounds(call: LifecycleCall): LifecycleRefusal | undefined;
  /** Resolves the target and checks that the caller may use it for this request. */
  target(call: LifecycleCall): Promise<LifecycleStep<Target>>;
  /** Reserves the request under its key's and pipeline's limits; `undefined` ticket: no admission. */
  admit(call: LifecycleCall, target: Target): Promise<LifecycleStep<Ticket | undefined>>;
}

/** Creates the lifecycle over the gateway, the catalog and the config's bounds. */
export function createRequestLifecycle(deps: LifecycleDeps): RequestLifecycle {
  const outputLimit = (key: string) => deps.catalog.models.get(key)?.maxOutputTokens;
  return {
    bounds(call) {
      const violation = checkMessageCount(call.demand, deps.bounds);
      return violation && { kind: 'over_bound', violation };
    },
    async target(call) {
      const target = await deps.gateway.resolveTarget(call.model, call.headerPipeline);
      if (target.kind === 'unknown') {
        return refused({ kind: 'unknown_target', message: target.message, param: target.param });
      }
      const adHoc = await deps.adHocChains?.(call.keyName, target);
      if (adHoc) return refused({ kind: 'ad_hoc_refused', message: adHoc.message });
      const unsuited = useProblem(deps.catalog, target, call.use);
      if (unsuited) return refused({ kind: 'wrong_use', message: unsuited });
      const violation = checkOutputTokens(call.demand, target.tiers, outputLimit, deps.bounds);
      if (violation) return refused({ kind: 'over_bound', violation });
      return { ok: true, value: target };
    },
    async admit(call, target) {
      if (!deps.admission) return { ok: true, value: undefined };
      const outcome = await admitDemand(deps.admission, deps.catalog, call.keyName, target, call.demand);
      return outcome.ok
        ? { ok: true, value: outcome.ticket }
        : refused({ kind: 'admission', refusal: outcome.refusal });
    },
  };
}

/**
 * The admit step alone, for a caller that resolved its target itself (a job run: its pipeline is
 * stored). Every ad-hoc chain is limited as the reserved pipeline `adhoc` (admission.pipelines.adhoc).
 */
export function admitDemand(
  admission: Admission,
  catalog: Catalog,
  keyName: string | undefined,
  target: Target,
  demand: RequestDemand,
): ReturnType<Admission['admit']> {
  return admission.admit({
    keyName,
    pipeline: stateScope(target.pipeline),
    reservation: chainReservation(demand, target.tiers, catalog),
  });
}

const refused = <T>(refusal: LifecycleRefusal): LifecycleStep<T> => ({ ok: false, refusal });

/** Why the target's chain cannot serve this request, or undefined when it can. */
function useProblem(catalog: Catalog, target: Target, use: RequestUse): string | undefined {
  const found = chainUse(target.tiers, (key) => catalog.models.get(key)?.dimensions);
  const chain = `'${echoable(target.pipeline, catalog.config.limits.maxEchoChars)}'`;
  if (!found.ok) return `${chain} ${found.problem}`;
  if (found.use.kind === use) return undefined;
  return use === 'chat'
    ? `${chain} names embedding models; send it to POST /v1/embeddings`
    : `${chain} names chat models; POST /v1/embeddings needs models with dimensions`;
}
