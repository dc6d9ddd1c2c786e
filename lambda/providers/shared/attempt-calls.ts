import type { CallOptions, ChatResult, ChatStreamEvent } from '../../core/chat/chat-model.js';
import { type AttemptSignal, createAttemptSignal } from './attempt-signal.js';
import { type ErrorSubject, toProviderError } from './to-provider-error.js';

/** Turns one provider's stream events into ours; one instance per stream. */
export interface StreamMapper<E> {
  push(event: E): ChatStreamEvent[];
  /** The single `finish` event, once the stream has ended. */
  end(): ChatStreamEvent;
}

/** The attempt discipline every adapter shares: timeout, abort, and only `ProviderError`s out. */
export interface AttemptCalls {
  /** One whole call: `send` gets the attempt's signal; its body is mapped to our result. */
  generate(
    call: CallOptions,
    send: (signal: AbortSignal) => Promise<unknown>,
    map: (body: unknown) => ChatResult,
  ): Promise<ChatResult>;
  /** A stream: the timeout covers the time to the first event, then only the caller's signal. */
  stream<E>(
    call: CallOptions,
    open: (signal: AbortSignal) => Promise<AsyncIterable<E>>,
    mapper: StreamMapper<E>,
  ): AsyncGenerator<ChatStreamEvent>;
}

/** Builds the shared discipline for one model (`subject` names it in every error). */
export function createAttemptCalls(subject: ErrorSubject, now: () => number): AttemptCalls {
  const fail = (error: unknown, attempt: AttemptSignal, call: CallOptions) =>
    toProviderError(error, {
      ...subject,
      callerSignal: call.signal,
      timedOut: attempt.timedOut,
      timeoutMs: call.timeoutMs,
      nowMs: now(),
      callerInput: call.callerInput,
    });

  return {
    async generate(call, send, map) {
      const attempt = createAttemptSignal(call.signal, call.timeoutMs);
      let completed = false;
      try {
        const body = await send(attempt.signal);
        completed = true;
        return map(body);
      } catch (error) {
        throw fail(error, attempt, call);
      } finally {
        attempt.dispose(!completed);
      }
    },

    async *stream(call, open, mapper) {
      const attempt = createAttemptSignal(call.signal, call.timeoutMs);
      let completed = false;
      try {
        for await (const event of await open(attempt.signal)) {
          attempt.stopTimer();
          yield* mapper.push(event);
        }
        // SDK iterators can end silently when aborted, or when a socket dies: that is not a clean end.
        if (attempt.signal.aborted) throw attempt.signal.reason;
        const finish = mapper.end();
        completed = true;
        yield finish;
      } catch (error) {
        throw fail(error, attempt, call);
      } finally {
        // A consumer that stops early (or an error) must not leave the upstream request running.
        attempt.dispose(!completed);
      }
    },
  };
}
