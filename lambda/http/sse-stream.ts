import type { Usage } from '../core/chat/chat-model.js';
import { type AnswerIds, eventChunk, roleChunk, usageChunk } from '../core/chat/openai-format.js';
import { ProviderError } from '../core/failures/provider-error.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteSuccess } from '../core/router/route-types.js';

const encoder = new TextEncoder();
const sse = (data: unknown) =>
  encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

export interface SseOptions {
  ids: AnswerIds;
  includeUsage: boolean;
  /** Aborts the upstream call: the caller went away. */
  abortCaller: () => void;
}

/**
 * The committed stream as OpenAI server-sent events. Nothing is replayed or spliced after the
 * commit: an upstream failure ends the stream with an explicit `error` event (and no `[DONE]`),
 * and the request is settled as `partial`; a caller that disconnects aborts the upstream call.
 */
export function sseBody(
  route: RouteSuccess<CommittedStream>,
  options: SseOptions,
): ReadableStream<Uint8Array> {
  const { ids } = options;
  const { first, rest } = route.value;
  let usage: Usage | undefined;
  let finished = false;

  const fail = async (error: unknown, controller?: ReadableStreamDefaultController<Uint8Array>) => {
    const failure =
      error instanceof ProviderError
        ? error
        : new ProviderError({
            provider: route.provider,
            model: route.model,
            failureClass: 'network',
            message: 'upstream stream failed',
            cause: error,
          });
    await route.settle({ error: failure, usage });
    if (!controller || failure.failureClass === 'cancelled') return;
    try {
      controller.enqueue(
        sse({
          error: {
            message: `upstream stream from '${route.model}' failed after output started: ${failure.message}`,
            type: 'api_error',
            code: 'stream_interrupted',
            param: null,
          },
        }),
      );
      controller.close();
    } catch {
      // the caller is already gone; the ledger has the story
    }
  };

  const silenceError = (ms: number) =>
    new ProviderError({
      provider: route.provider,
      model: route.model,
      failureClass: 'timeout',
      message: `no output for ${ms} ms`,
    });

  const emit = (controller: ReadableStreamDefaultController<Uint8Array>, event: CommittedStream['first']) => {
    if (event.type === 'finish') usage = event.usage ?? usage;
    controller.enqueue(sse(eventChunk(event, ids)));
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(sse(roleChunk(ids)));
      emit(controller, first);
    },
    async pull(controller) {
      if (finished) return;
      let next: IteratorResult<CommittedStream['first']>;
      // An upstream that goes silent mid-stream must not hold the caller forever: the model's
      // attempt timeout bounds the wait for each chunk. This is the only timer after the commit,
      // and a different one from the attempt's: the router stopped the attempt timer at the first
      // event (a committed stream may rightly outlast it) and the adapter has none, so silence,
      // not total length, is what ends a committed stream. It ends it through the caller's
      // signal, so the ledger settles the attempt as a `timeout` after output (`partial`).
      let silent = false;
      const idle = setTimeout(() => {
        silent = true;
        options.abortCaller();
      }, route.timeoutMs);
      try {
        next = await rest.next();
      } catch (error) {
        finished = true;
        await fail(silent ? silenceError(route.timeoutMs) : error, controller);
        return;
      } finally {
        clearTimeout(idle);
      }
      if (next.done) {
        finished = true;
        if (options.includeUsage) controller.enqueue(sse(usageChunk(usage, ids)));
        controller.enqueue(sse('[DONE]'));
        controller.close();
        await route.settle({ usage });
        return;
      }
      emit(controller, next.value);
    },
    async cancel() {
      if (finished) return;
      finished = true;
      options.abortCaller();
      await rest.return?.().catch(() => undefined);
      await fail(
        new ProviderError({
          provider: route.provider,
          model: route.model,
          failureClass: 'cancelled',
          message: 'the caller went away',
        }),
      );
    },
  });
}
