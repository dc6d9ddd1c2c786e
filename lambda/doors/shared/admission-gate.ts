/**
 * Admission before any upstream call (docs/design.md#admission): the request is reserved under
 * every limit of its caller key and pipeline, or refused with the gateway's own 429 — no attempt,
 * no breaker, no upstream. An admitted request is metered from its ledger lines and settled once
 * when it ends (a stream when its last event is sent). The settlement is written before the
 * response ends: Lambda freezes the container then, and a write still under way would stall.
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
    const admitted = await lifecycle.admit(lifecycleCall(c, use), c.get('target'));
    if (!admitted.ok) return lifecycleRefusalResponse(admitted.refusal, now());
    const ticket = admitted.value;
    if (!ticket || ticket.holds.length === 0) return next();
    const settlement = await meteredNext(meter, admission, ticket, c.get('requestId'), next);
    if (ticket.budgetRemainingUsd !== undefined)
      c.res.headers.set(BUDGET_REMAINING_HEADER, ticket.budgetRemainingUsd.toFixed(6));
    // A stream settles on its request line, when its last event is out: its end waits for the write.
    if (c.get('neutral').streamed && c.res.status === 200 && c.res.body) {
      c.res = new Response(endingAfter(c.res.body, settlement.done), c.res);
      return;
    }
    // Anything else has ended by now.
    meter.close(c.get('requestId'));
    await settlement.done();
  };
}

/** The admission settlement of one request, written once its meter ends. */
interface Settlement {
  /** Resolves once the settlement is written (at once if it has not started: nothing to wait for). Never rejects. */
  done(): Promise<void>;
}

async function meteredNext(
  meter: SpendMeter,
  admission: Admission,
  ticket: Ticket,
  requestId: string,
  next: () => Promise<void>,
): Promise<Settlement> {
  // The admission reports its own store failures; a settlement never fails the request.
  let writing: Promise<void> | undefined;
  meter.open(requestId, (use) => {
    writing = admission.settle(ticket, use).catch(() => undefined);
  });
  try {
    await next();
  } catch (error) {
    meter.close(requestId);
    throw error;
  }
  return { done: async () => writing };
}

/**
 * Passes a stream's bytes through as they come and closes it only once `written()` resolves. The
 * stream settles (writes its request line, and so starts the settlement) before it closes, so by
 * the time this sees the end the settlement has started: the caller has every byte at once, and
 * only the end of the response waits for the write. A caller that goes away cancels the stream,
 * which settles it too: the cancellation is over once that settlement is written.
 */
function endingAfter(
  body: ReadableStream<Uint8Array>,
  written: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (!next.done) return controller.enqueue(next.value);
      await written();
      try {
        controller.close();
      } catch {
        // cancelled meanwhile: the cancellation waits for the same write
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
      await written();
    },
  });
}
