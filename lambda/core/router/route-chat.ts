import type { ChatRequest, ChatResult, ChatStreamEvent } from '../chat/chat-model.js';
import { ProviderError } from '../failures/provider-error.js';
import type { RouteRequest, RouteResult, RouterDeps } from './route-types.js';
import { runAttempts } from './run-attempts.js';

/** Routes a plain (non-streaming) chat request; the ledger is complete when it resolves. */
export async function routeGenerate(
  request: RouteRequest,
  deps: RouterDeps,
  chat: ChatRequest,
): Promise<RouteResult<ChatResult>> {
  const result = await runAttempts(request, deps, (model, options) =>
    model.generate(chat, { ...options, callerInput: chat }),
  );
  if (result.ok) await result.settle({ usage: result.value.usage });
  return result;
}

/**
 * A stream whose first event has arrived. Up to here an attempt could still fail over; from here
 * on the caller owns what it received, and a failure ends the stream (docs/design.md#streaming-commit).
 */
export interface CommittedStream {
  first: ChatStreamEvent;
  rest: AsyncIterator<ChatStreamEvent>;
}

/**
 * Routes a streaming chat request up to the commit boundary: each attempt opens the stream and
 * waits for its first event. The caller pipes `first` and `rest`, then calls `settle` once.
 */
export function routeStream(
  request: RouteRequest,
  deps: RouterDeps,
  chat: ChatRequest,
): Promise<RouteResult<CommittedStream>> {
  return runAttempts(request, deps, async (model, options) => {
    const rest = model.stream(chat, { ...options, callerInput: chat })[Symbol.asyncIterator]();
    const head = await rest.next();
    if (head.done) {
      throw new ProviderError({
        provider: model.provider,
        model: model.key,
        failureClass: 'malformed_response',
        message: 'upstream stream ended before any output',
      });
    }
    return { first: head.value, rest };
  });
}
