import type { CallOptions, ChatResult, ChatStreamEvent } from '../../core/chat/chat-model.js';
import type { FailureSignals } from '../../core/failures/failure-signals.js';
import { toProviderError } from '../../core/failures/to-provider-error.js';
import { linkSignals } from '../../core/linked-signal.js';
import type { ErrorSubject } from './malformed-response.js';
import { prepareLocally } from './wire-body.js';

/** Turns one provider's stream events into ours; one instance per stream. */
export interface StreamMapper<E> {
  push(event: E): ChatStreamEvent[];
  /** The single `finish` event, once the stream has ended. */
  end(): ChatStreamEvent;
  /** Prompt tokens the upstream reported so far (before its final usage), if it reports them early. */
  reportedInputTokens?(): number | undefined;
}

/**
 * The attempt discipline every adapter shares: prepare the wire body, honour the attempt's
 * signal, and let only `ProviderError`s out. The attempt's time is the router's (one timer,
 * behind `call.signal`): nothing here starts a timer.
 *
 * Every call has two steps. `prepare` turns our request into the upstream's wire body, in this
 * process: whatever it throws (a conversion, a serialiser's stack overflow) is the caller's
 * `invalid_request`, never the route's (`wire-body.ts`); a `ProviderError` it throws passes as is.
 * Then `send`/`open` talk to the upstream with that body; their failures are classified as the
 * upstream's, except what an SDK's own serialiser throws, which the adapter judges with a
 * `SerialisationWatch`.
 */
export interface AttemptCalls {
  /** One whole call: `send` gets the prepared body and the attempt's signal; its answer is mapped to our result (a chat answer, embeddings). */
  generate<W, T = ChatResult>(
    call: CallOptions,
    prepare: () => W,
    send: (wire: W, signal: AbortSignal) => Promise<unknown>,
    map: (body: unknown) => T,
  ): Promise<T>;
  /** A stream: `open` gets the prepared body and the attempt's signal, plus a release for a consumer that stops early. */
  stream<W, E>(
    call: CallOptions,
    prepare: () => W,
    open: (wire: W, signal: AbortSignal) => Promise<AsyncIterable<E>>,
    mapper: StreamMapper<E>,
  ): AsyncGenerator<ChatStreamEvent>;
}

/**
 * Builds the shared discipline for one model (`subject` names it in every error); its failures
 * are classified by `signals`, the family's rows of the failure matrix.
 */
export function createAttemptCalls(
  subject: ErrorSubject,
  now: () => number,
  signals: FailureSignals,
): AttemptCalls {
  // The one conversion of an attempt's failure, judged by the attempt's own signal (not the
  // release below: a consumer that stops reading is not a failure).
  const fail = (error: unknown, call: CallOptions) =>
    toProviderError(error, {
      ...subject,
      signal: call.signal,
      nowMs: now(),
      callerInput: call.callerInput,
      signals,
    });

  const prepared = <W>(prepare: () => W): W => prepareLocally(subject, 'prepare', prepare);

  return {
    async generate(call, prepare, send, map) {
      try {
        return map(await send(prepared(prepare), call.signal));
      } catch (error) {
        throw fail(error, call);
      }
    },

    async *stream(call, prepare, open, mapper) {
      const release = new AbortController();
      let completed = false;
      try {
        const wire = prepared(prepare);
        for await (const event of await open(wire, linkSignals(call.signal, release.signal))) {
          yield* mapper.push(event);
        }
        // SDK iterators can end silently when aborted, or when a socket dies: that is not a clean end.
        if (call.signal.aborted) throw call.signal.reason;
        const finish = mapper.end();
        completed = true;
        yield finish;
      } catch (error) {
        const failure = fail(error, call);
        failure.reportedInputTokens ??= mapper.reportedInputTokens?.();
        throw failure;
      } finally {
        // A consumer that stops early (or an error) must not leave the upstream request running;
        // a stream that ended cleanly keeps its keep-alive socket.
        if (!completed) release.abort(new DOMException('released', 'AbortError'));
      }
    },
  };
}
