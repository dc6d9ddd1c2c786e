import type { CallOptions, ChatResult, ChatStreamEvent } from '../../core/chat/chat-model.js';
import { toProviderError } from '../../core/failures/to-provider-error.js';
import { linkSignals } from '../../core/linked-signal.js';
import type { ErrorSubject } from './malformed-response.js';

/** Turns one provider's stream events into ours; one instance per stream. */
export interface StreamMapper<E> {
  push(event: E): ChatStreamEvent[];
  /** The single `finish` event, once the stream has ended. */
  end(): ChatStreamEvent;
}

/**
 * The attempt discipline every adapter shares: honour the attempt's signal, and let only
 * `ProviderError`s out. The attempt's time is the router's (one timer, behind `call.signal`):
 * nothing here starts a timer.
 */
export interface AttemptCalls {
  /** One whole call: `send` gets the attempt's signal; its body is mapped to our result (a chat answer, embeddings). */
  generate<T = ChatResult>(
    call: CallOptions,
    send: (signal: AbortSignal) => Promise<unknown>,
    map: (body: unknown) => T,
  ): Promise<T>;
  /** A stream: `open` gets the attempt's signal, plus a release for a consumer that stops early. */
  stream<E>(
    call: CallOptions,
    open: (signal: AbortSignal) => Promise<AsyncIterable<E>>,
    mapper: StreamMapper<E>,
  ): AsyncGenerator<ChatStreamEvent>;
}

/** Builds the shared discipline for one model (`subject` names it in every error). */
export function createAttemptCalls(subject: ErrorSubject, now: () => number): AttemptCalls {
  // The one conversion of an attempt's failure, judged by the attempt's own signal (not the
  // release below: a consumer that stops reading is not a failure).
  const fail = (error: unknown, call: CallOptions) =>
    toProviderError(error, { ...subject, signal: call.signal, nowMs: now(), callerInput: call.callerInput });

  return {
    async generate(call, send, map) {
      try {
        return map(await send(call.signal));
      } catch (error) {
        throw fail(error, call);
      }
    },

    async *stream(call, open, mapper) {
      const release = new AbortController();
      let completed = false;
      try {
        for await (const event of await open(linkSignals(call.signal, release.signal))) {
          yield* mapper.push(event);
        }
        // SDK iterators can end silently when aborted, or when a socket dies: that is not a clean end.
        if (call.signal.aborted) throw call.signal.reason;
        const finish = mapper.end();
        completed = true;
        yield finish;
      } catch (error) {
        throw fail(error, call);
      } finally {
        // A consumer that stops early (or an error) must not leave the upstream request running;
        // a stream that ended cleanly keeps its keep-alive socket.
        if (!completed) release.abort(new DOMException('released', 'AbortError'));
      }
    },
  };
}
