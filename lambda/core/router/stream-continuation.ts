/**
 * The decisions of stream continuation (docs/concepts.md#streams-cut-after-output): whether a
 * committed stream that broke may be continued, which routes may continue it and in what order,
 * and the request that asks for the continuation. Pure: no store, no clock, no socket.
 */
import type { Capability } from '../capabilities/capability.js';
import type { ChatRequest } from '../chat/chat-model.js';
import type { Tier } from '../dsl/types.js';
import type { FailureClass } from '../failures/failure-class.js';

/**
 * A pipeline's `streaming.afterOutput`: what happens when a committed stream breaks. `error`
 * (default): the stream ends with an error event. `continue-same-model`: a route of the same
 * model that takes an assistant prefill continues it. `continue`: any later model of the chain
 * may continue it too.
 */
export type AfterOutputPolicy = 'error' | 'continue-same-model' | 'continue';

/** The policies, in the order the config lists them. */
export const AFTER_OUTPUT_POLICIES = ['error', 'continue-same-model', 'continue'] as const;

/**
 * The failures after output a continuation may repair: the upstream broke off (cut, reset, an
 * error event), went silent (idle timeout) or sent an event it could not parse. A refusal, a
 * schema check, a caller that left: never.
 */
const CONTINUABLE: ReadonlySet<FailureClass> = new Set<FailureClass>([
  'network',
  'timeout',
  'malformed_response',
  'unavailable',
  'rate_limited',
]);

/** What the caller had received when the stream broke. */
export interface StreamSoFar {
  /** The answer's text so far, every attempt of it. */
  text: string;
  /** True once any tool-call event went out: tool-call arguments are never continued. */
  toolCall: boolean;
}

/** Why a broken stream is not continued. */
export type NoContinuation = 'policy' | 'tool_call' | 'reasoning' | 'failure_class';

/**
 * Why the broken stream may not be continued, or undefined when it may: the policy allows it, no
 * tool call is in flight, the request did not ask for reasoning, and the failure is one a
 * continuation repairs. `needs` is what the request needs a route to carry (`needsOf`): one that
 * asks for reasoning (`reasoning`) is never continued, since a prefill with extended thinking on
 * is refused (Anthropic's Messages API: "you can't pre-fill responses when thinking is enabled"),
 * and sent without the thinking it would be another request. No capability says a route takes both.
 */
export function refuseContinuation(
  policy: AfterOutputPolicy,
  failure: FailureClass,
  soFar: StreamSoFar,
  needs: readonly Capability[] = [],
): NoContinuation | undefined {
  if (policy === 'error') return 'policy';
  if (soFar.toolCall) return 'tool_call';
  if (needs.includes('reasoning')) return 'reasoning';
  if (!CONTINUABLE.has(failure)) return 'failure_class';
  return undefined;
}

/** The routes that may continue, in order, and the ones passed over because they take no prefill. */
export interface ContinuationRoutes {
  /** The routes to try, in order, each with its model key. */
  routes: { model: string; route: string }[];
  /** Route keys skipped because their family (or model) takes no assistant prefill; never called. */
  noPrefill: string[];
}

/** What {@link continuationRoutes} reads of the catalog. */
export interface ContinuationCatalog {
  /** The route keys of a model, in the order they are tried. */
  routesOf(model: string): readonly string[];
  /** True when the route can be called here and takes an assistant prefill. */
  takesPrefill(route: string): boolean;
}

/**
 * The routes that may continue a stream the route `cut` (of model `model`) broke: first the other
 * routes of the same model, then `cut` itself (a cut is often transient); with `continue`, then
 * every other model of the chain from the same tier on, in chain order. Routes that take no
 * prefill are listed apart and never tried.
 */
export function continuationRoutes(
  policy: Exclude<AfterOutputPolicy, 'error'>,
  tiers: readonly Tier[],
  from: { model: string; route: string },
  catalog: ContinuationCatalog,
): ContinuationRoutes {
  const own = catalog.routesOf(from.model);
  const models = [from.model];
  if (policy === 'continue') {
    const tier = tiers.findIndex((t) => t.members.some((m) => m.key === from.model));
    for (const later of tiers.slice(tier)) models.push(...later.members.map((m) => m.key));
  }
  const ordered = [
    ...own.filter((route) => route !== from.route).map((route) => ({ model: from.model, route })),
    { model: from.model, route: from.route },
    ...models
      .filter((m) => m !== from.model)
      .flatMap((model) => catalog.routesOf(model).map((route) => ({ model, route }))),
  ];
  const routes: ContinuationRoutes['routes'] = [];
  const noPrefill: string[] = [];
  const seen = new Set<string>();
  for (const candidate of ordered) {
    if (seen.has(candidate.route)) continue;
    seen.add(candidate.route);
    if (catalog.takesPrefill(candidate.route)) routes.push(candidate);
    else noPrefill.push(candidate.route);
  }
  return { routes, noPrefill };
}

/**
 * The request that asks for the continuation: the conversation with the text so far as a trailing
 * assistant message (the prefill), its trailing whitespace removed (Anthropic refuses a prefill
 * that ends in whitespace; the model writes it again, and the seam drops it). No text: the
 * request as it was.
 */
export function prefilled(chat: ChatRequest, text: string): ChatRequest {
  const prefill = text.trimEnd();
  if (prefill === '') return chat;
  return { ...chat, messages: [...chat.messages, { role: 'assistant', content: prefill }] };
}

/** The in-band label of a continued answer: the route that broke, the output tokens the caller had, the route that continued. */
export interface ContinuedLabel {
  from: string;
  atToken: number;
  by: string;
}
