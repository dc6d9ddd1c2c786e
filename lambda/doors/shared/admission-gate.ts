/**
 * Admission before any upstream call (docs/design.md#admission): the request is reserved under
 * every limit of its caller key and pipeline, or refused with the gateway's own 429 — no attempt,
 * no breaker, no upstream. An admitted request is metered from its ledger lines and settled once
 * when it ends (a stream when its last event is sent).
 */
import type { MiddlewareHandler } from 'hono';
import type { Admission, Ticket } from '../../core/admission/admission.js';
import type { SpendMeter } from '../../core/admission/spend-meter.js';
import type { RequestLifecycle, RequestUse } from '../../core/lifecycle/request-lifecycle.js';
import type { DoorEnv } from './door-lifecycle.js';
import { lifecycleCall, lifecycleRefusalResponse } from './door-lifecycle.js';

/** What the gate needs: the lifecycle, the admission service it settles with, and the meter on the gateway's ledger. */
export interface AdmissionGateDeps {
  lifecycle: RequestLifecycle;
  admission: Admission;
  meter: SpendMeter;
  now: () => number;
}

/** Header with the US$ left today under the tightest spend limit, after this request's reservation. */
export const BUDGET_REMAINING_HEADER = 'x-switchyard-budget-remaining';
/**
 * The lifecycle's admit and settle steps as middleware, after `resolvesTarget`, on every door that
 * routes at once (a job is admitted when it is taken, `doors/jobs`): what `c.var.neutral` asks is
 * reserved under the key's and pipeline's limits, metered from the request's ledger lines and
 * settled when it ends (a stream when its last event is sent).
 */
export function admissionGate(deps: AdmissionGateDeps, use: RequestUse): MiddlewareHandler<DoorEnv> {
  const { lifecycle, admission, meter, now } = deps;
  return async (c, next) => {
    const admitted = await lifecycle.admit(lifecycleCall(c, use), c.var.target);
    if (!admitted.ok) return lifecycleRefusalResponse(admitted.refusal, now());
    const ticket = admitted.value;
    if (!ticket || ticket.holds.length === 0) return next();
    await meteredNext(meter, admission, ticket, c.var.requestId, next);
    // A stream settles on its request line; anything else has ended by now.
    if (!(c.var.neutral.streamed && c.res.status === 200)) meter.close(c.var.requestId);
    if (ticket.budgetRemainingUsd !== undefined)
      c.res.headers.set(BUDGET_REMAINING_HEADER, ticket.budgetRemainingUsd.toFixed(6));
  };
}

async function meteredNext(
  meter: SpendMeter,
  admission: Admission,
  ticket: Ticket,
  requestId: string,
  next: () => Promise<void>,
): Promise<void> {
  meter.open(requestId, (use) => void admission.settle(ticket, use));
  try {
    await next();
  } catch (error) {
    meter.close(requestId);
    throw error;
  }
}
