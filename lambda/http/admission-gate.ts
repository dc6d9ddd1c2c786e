/**
 * Admission before any upstream call (docs/design.md#admission): the request is reserved under
 * every limit of its caller key and pipeline, or refused with the gateway's own 429 — no attempt,
 * no breaker, no upstream. An admitted request is metered from its ledger lines and settled once
 * when it ends (a stream when its last event is sent). The settlement is written before the
 * response ends: Lambda freezes the container then, and a write still under way would stall.
 */
import type { MiddlewareHandler } from 'hono';
import type { Admission, Refusal, Ticket } from '../core/admission/admission.js';
import { type AskedChat, chainReservation } from '../core/admission/chain-reservation.js';
import type { SpendMeter } from '../core/admission/spend-meter.js';
import { stateScope } from '../core/catalog/ad-hoc-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { SharedBody, TargetEnv } from './chat-admission.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** What the gate needs: the admission service and the meter on the gateway's ledger. */
export interface AdmissionGateDeps {
  admission: Admission;
  meter: SpendMeter;
  catalog: Catalog;
}

/** Header with the US$ left today under the tightest spend limit, after this request's reservation. */
export const BUDGET_REMAINING_HEADER = 'x-switchyard-budget-remaining';

/** The validated body fields the gate reads (a Messages body has them too, and its `system` apart). */
export type AdmissionInput = {
  out: {
    json: Pick<SharedBody, 'messages' | 'max_tokens' | 'max_completion_tokens'> & {
      stream?: boolean | null | undefined;
      system?: unknown;
    };
  };
};

/** What a request asks that bears on its reservation, read from its validated body. */
export type AskedOf<B> = (body: B) => AskedChat;

/** A chat or Messages request: its messages (and a Messages `system`), and its own output bound when it has one. */
export const chatAsked: AskedOf<AdmissionInput['out']['json']> = (body) => ({
  inputChars: JSON.stringify(body.messages).length + (body.system ? JSON.stringify(body.system).length : 0),
  maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
});

const UNITS = { requests: 'requests per minute', tokens: 'tokens per minute', spend: 'US$ per UTC day' };

/** The caller's view of a refusal: 429 (503 for a fail-closed store) with `Retry-After`. */
export function refusalResponse(refusal: Refusal, now: number): Response {
  const { limit } = refusal;
  const retryAfter = String(Math.max(1, Math.ceil((refusal.resetAt - now) / 1000)));
  const headers = { 'retry-after': retryAfter };
  const resets = new Date(refusal.resetAt).toISOString();
  const who = `${limit.scope} '${limit.name}'`;
  if (refusal.reason === 'unavailable') {
    const message = `the admission store is unreachable and ${limit.field} fails closed; retry after ${retryAfter} s`;
    return errorResponse(503, errorBody(message, 'api_error', 'admission_unavailable', limit.field), headers);
  }
  const cap = limit.kind === 'spend' ? limit.cap / 1e9 : limit.cap;
  const message = `${who} has reached its limit of ${cap} ${UNITS[limit.kind]} (${limit.field}); it resets at ${resets}`;
  const code = refusal.reason === 'budget' ? 'budget_exceeded' : 'rate_limit_exceeded';
  return errorResponse(429, errorBody(message, 'rate_limit_error', code, limit.field), headers);
}

/**
 * The admission middleware of `POST /v1/chat/completions` and `POST /v1/messages` (and, with its
 * own `askedOf`, of `POST /v1/embeddings`), placed after `routeTarget`.
 */
export function admissionGate<B extends object>(
  deps: AdmissionGateDeps,
  now: () => number,
  askedOf: AskedOf<B>,
): MiddlewareHandler<TargetEnv, string, { out: { json: B } }> {
  const { admission, meter, catalog } = deps;
  return async (c, next) => {
    const body = c.req.valid('json');
    const target = c.var.target;
    const asked = askedOf(body);
    const outcome = await admission.admit({
      keyName: c.var.callerKeyName,
      // Every ad-hoc chain is limited as the reserved pipeline `adhoc` (admission.pipelines.adhoc).
      pipeline: stateScope(target.pipeline),
      reservation: chainReservation(asked, target.tiers, catalog),
    });
    if (!outcome.ok) return refusalResponse(outcome.refusal, now());
    const { ticket } = outcome;
    if (ticket.holds.length === 0) return next();
    const settlement = await meteredNext(meter, admission, ticket, c.var.requestId, next);
    if (ticket.budgetRemainingUsd !== undefined)
      c.res.headers.set(BUDGET_REMAINING_HEADER, ticket.budgetRemainingUsd.toFixed(6));
    // A stream settles on its request line, when its last event is out: its end waits for the write.
    const streamed = 'stream' in body && body.stream === true;
    if (streamed && c.res.status === 200 && c.res.body) {
      c.res = new Response(endingAfter(c.res.body, settlement.done), c.res);
      return;
    }
    // Anything else has ended by now.
    meter.close(c.var.requestId);
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
