import type { AttemptLedgerEntry, RequestLedgerEntry } from '../ledger/ledger-entry.js';
import type { SpanAttributes } from './span-port.js';

/** `gen_ai.operation.name` of a request and its attempts: a chat completion (or message), or embeddings. */
export type GenAiOperation = 'chat' | 'embeddings';

/** The operation of a request whose front door is not known (a job): jobs run chat completions. */
export const GEN_AI_OPERATION: GenAiOperation = 'chat';

/** What the catalog knows of the route an attempt went to. */
export interface TracedRoute {
  /** `gen_ai.provider.name`: the well-known name of the provider family (`aws.bedrock`), else the configured provider name. */
  providerName: string;
  /** The provider's raw model id (`gen_ai.request.model`). */
  model: string;
}

/** The route of a (model key, provider name) pair; undefined when the catalog has no such route. */
export type RouteLookup = (modelKey: string, provider: string) => TracedRoute | undefined;

/**
 * The breaker state the selection saw: an attempt is `fail-open` only when every breaker it could
 * pick was open (or cooling); any other attempt went through a closed breaker.
 */
const breakerSeen = (entry: AttemptLedgerEntry) => (entry.action === 'fail-open' ? 'open' : 'closed');

/** The attributes of one attempt's span, from its ledger line (which holds no prompt, output or key). */
export function attemptAttributes(
  entry: AttemptLedgerEntry,
  route: TracedRoute | undefined,
  operation: GenAiOperation = GEN_AI_OPERATION,
): SpanAttributes {
  const failed = entry.outcome !== 'ok';
  return {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': route?.providerName ?? entry.provider,
    'gen_ai.request.model': route?.model ?? entry.model,
    'gen_ai.response.model': failed ? undefined : (route?.model ?? entry.model),
    'gen_ai.usage.input_tokens': entry.usage?.inputTokens,
    'gen_ai.usage.output_tokens': entry.usage?.outputTokens,
    'error.type': failed ? entry.outcome : undefined,
    'http.response.status_code': entry.status,
    'switchyard.request_id': entry.requestId,
    'switchyard.pipeline': entry.pipeline,
    'switchyard.attempt': entry.attempt,
    'switchyard.tier': entry.tier,
    'switchyard.model': entry.model,
    'switchyard.provider': entry.provider,
    'switchyard.action': entry.action,
    'switchyard.step': entry.step,
    'switchyard.outcome': entry.outcome,
    'switchyard.failure_class': failed ? entry.outcome : undefined,
    'switchyard.phase': entry.phase,
    'switchyard.timeout_phase': entry.timeoutPhase,
    'switchyard.breaker.state_seen': breakerSeen(entry),
    'switchyard.retry_after_ms': entry.retryAfterMs,
    'switchyard.skipped_routes': entry.skipped?.map((s) => s.route).join(','),
    'switchyard.cost_usd': entry.costUsd,
  };
}

/** The attributes the request's span gets when its request line is written. */
export function requestAttributes(
  entry: RequestLedgerEntry,
  answering: TracedRoute | undefined,
): SpanAttributes {
  const answered = entry.model !== undefined;
  return {
    'gen_ai.request.model': entry.pipeline,
    'gen_ai.response.model': answered ? (answering?.model ?? entry.model) : undefined,
    'gen_ai.provider.name': answered ? answering?.providerName : undefined,
    'gen_ai.usage.input_tokens': entry.usage.inputTokens,
    'gen_ai.usage.output_tokens': entry.usage.outputTokens,
    'error.type': requestErrorType(entry),
    'switchyard.pipeline': entry.pipeline,
    // The span's own id is the gateway's (set when it opened); the caller's label rides along.
    'switchyard.client_request_id': entry.clientRequestId,
    'switchyard.reason': entry.reason,
    'switchyard.attempts': entry.attempts,
    'switchyard.model': entry.model,
    'switchyard.route': entry.route,
    'switchyard.failure_class': entry.failureClass,
    'switchyard.degraded': entry.degraded,
    'switchyard.limit': entry.limit,
    'switchyard.stream': entry.stream,
    'switchyard.cost_usd': entry.costUsd,
  };
}

/** A request that did not end in a full answer fails its span: with its failure class, else its reason. */
export function requestErrorType(entry: RequestLedgerEntry): string | undefined {
  if (entry.reason === 'success' || entry.reason === 'last_resort') return undefined;
  return entry.failureClass ?? entry.reason;
}
