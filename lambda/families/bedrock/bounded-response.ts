/**
 * Bounds what the Bedrock client reads of one response (docs/security.md#bounded-upstream-reads).
 * The client's deserializers read the raw body themselves (a whole JSON body, or AWS event-stream
 * messages), so the bound sits between the HTTP handler and the deserializer: a middleware hands
 * the deserializer the body through a meter instead of the socket's stream. It works the same
 * over the HTTP/1.1 and the HTTP/2 handler.
 */
import { Readable } from 'node:stream';
import type { ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import type { ProviderError } from '../../core/failures/provider-error.js';
import type { AnswerMeters, ByteMeter } from '../shared/answer-limits.js';
import { boundedStream } from '../shared/bounded-stream.js';

const EVENT_STREAM = 'application/vnd.amazon.eventstream';

/** What the middleware needs of the raw response. */
interface RawResponse {
  headers?: Record<string, string | undefined>;
  body?: unknown;
}

/**
 * Adds the bound to one command: with `stream` (a `ConverseStreamCommand`), an event-stream
 * answer is bounded per message; anything else (a `ConverseCommand`'s answer, whatever its
 * content type says; an error body) whole. Returns what the read failed with when it was over
 * its bound: a fresh `malformed_response` (the SDK appends its own hints to the message of the
 * error it saw).
 */
export function boundResponseBody(
  command: ConverseCommand | ConverseStreamCommand,
  meters: AnswerMeters,
  stream: boolean,
): () => ProviderError | undefined {
  let meter: ByteMeter | undefined;
  (command as ConverseCommand).middlewareStack.add(
    (next) => async (args) => {
      const output = await next(args);
      const response = output.response as RawResponse | undefined;
      if (response?.body instanceof Readable) {
        const type = response.headers?.['content-type']?.split(';')[0]?.trim().toLowerCase();
        meter = stream && type === EVENT_STREAM ? meters.eventStream() : meters.body();
        response.body = boundedStream(response.body, meter);
      }
      return output;
    },
    // The lowest of the deserialize step runs right above the HTTP handler, before the body is read.
    { step: 'deserialize', priority: 'low', name: 'switchyardBoundedBody' },
  );
  return () => meter?.exceeded();
}
