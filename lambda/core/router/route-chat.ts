import { needsOf } from '../capabilities/request-needs.js';
import { attemptTokenEstimate } from '../capacity/create-route-capacity.js';
import type { ChatRequest, ChatResult, ChatStreamEvent } from '../chat/chat-model.js';
import { estimatePromptTokens } from '../chat/token-estimate.js';
import { ProviderError } from '../failures/provider-error.js';
import type { AttemptCall, RouteRequest, RouteResult, RouterDeps } from './route-types.js';
import { runAttempts } from './run-attempts.js';
import { prefilled } from './stream-continuation.js';

/**
 * Routes a plain (non-streaming) chat request; the ledger is complete when it resolves (but for a
 * failure's request line when `request.deferFailureLine` asks for it). `call` replaces the plain
 * upstream call, e.g. with one that checks structured output. The caller's `max_tokens` sizes each
 * attempt's total limit (docs/configuration.md#timeouts); only routes that can carry what `chat`
 * needs are tried (docs/concepts.md#capabilities).
 */
export async function routeGenerate(
  request: RouteRequest,
  deps: RouterDeps,
  chat: ChatRequest,
  call: AttemptCall<ChatResult> = (model, options) => model.generate(chat, { ...options, callerInput: chat }),
): Promise<RouteResult<ChatResult>> {
  const needs = needsOf(chat);
  const result = await runAttempts(
    { ...request, maxOutputTokens: chat.maxTokens, needs, tokenEstimate: quotaTokens(deps, chat) },
    deps,
    call,
  );
  if (result.ok) await result.settle({ usage: result.value.usage });
  return result;
}

/** Tokens an attempt reserves under declared token quotas; 0 (not computed) without capacity limits. */
function quotaTokens(deps: RouterDeps, chat: ChatRequest): number {
  if (!deps.capacity) return 0;
  return attemptTokenEstimate(JSON.stringify(chat.messages).length, chat.maxTokens);
}

/**
 * A stream whose first event has arrived. Up to here an attempt could still fail over; from here
 * on the caller owns what it received, and a failure ends the stream (docs/design.md#streaming-commit).
 */
export interface CommittedStream {
  first: ChatStreamEvent;
  rest: AsyncIterator<ChatStreamEvent>;
  /**
   * The prompt tokens of the request this attempt sent, estimated from its text
   * (`estimatePromptTokens`): what a stream that breaks before its usage report is billed for
   * input, unless the upstream reported its count (docs/concepts.md#usage-of-interrupted-streams).
   */
  promptTokens: number;
}

/**
 * Routes a streaming chat request up to the commit boundary: each attempt opens the stream and
 * waits for its first event. The caller pipes `first` and `rest`, then calls `settle` once (or,
 * when the stream breaks and the pipeline continues after output, `resume`).
 */
export function routeStream(
  request: RouteRequest,
  deps: RouterDeps,
  chat: ChatRequest,
  callerInput: ChatRequest = chat,
): Promise<RouteResult<CommittedStream>> {
  const opening =
    (sent: ChatRequest): AttemptCall<CommittedStream> =>
    async (model, options) => {
      // A stream's first byte is its first event, awaited here: the commit ends the attempt's timer.
      const { onFirstByte: _headersAreNotTheFirstByte, ...streamOptions } = options;
      const rest = model.stream(sent, { ...streamOptions, callerInput })[Symbol.asyncIterator]();
      const head = await rest.next();
      if (head.done) {
        throw new ProviderError({
          provider: model.provider,
          model: model.key,
          failureClass: 'malformed_response',
          message: 'upstream stream ended before any output',
        });
      }
      return { first: head.value, rest, promptTokens: estimatePromptTokens(sent) };
    };
  const continues = (request.policy.afterOutput ?? 'error') !== 'error';
  const continuation = continues ? { call: (text: string) => opening(prefilled(chat, text)) } : undefined;
  return runAttempts(
    { ...request, needs: needsOf(chat), tokenEstimate: quotaTokens(deps, chat) },
    deps,
    opening(chat),
    continuation,
  );
}
