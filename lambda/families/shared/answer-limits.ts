/**
 * Bounds on what one attempt reads from an upstream (docs/security.md#bounded-upstream-reads): a
 * body read whole (a JSON answer, an error body) and each event of a stream. The bytes are
 * counted as they arrive, so an answer over a bound is cut there: the reader throws a
 * `malformed_response` and the caller of the meter closes the connection. Memory stays bounded
 * by the limit, whatever the upstream sends.
 */
import { limitsSchema } from '../../core/catalog/config-schema.js';
import type { ProviderError } from '../../core/failures/provider-error.js';
import { type ErrorSubject, malformedResponse } from './malformed-response.js';

/** The two bounds, under their config names (`limits.*`, docs/configuration.md#callers-limits-webhooks). */
export interface AnswerLimits {
  /** Most bytes of one body read whole (after any content decoding). Default 8388608 (8 MiB). */
  maxUpstreamBodyBytes: number;
  /** Most bytes of one stream event (an SSE event's lines, or one AWS event-stream message). Default 1048576 (1 MiB). */
  maxUpstreamEventBytes: number;
}

const schemaDefaults = limitsSchema.parse({});

/** The config's defaults: what a model built without limits reads. */
export const DEFAULT_ANSWER_LIMITS: Readonly<AnswerLimits> = Object.freeze({
  maxUpstreamBodyBytes: schemaDefaults.maxUpstreamBodyBytes,
  maxUpstreamEventBytes: schemaDefaults.maxUpstreamEventBytes,
});

/**
 * Bytes an embeddings answer may hold per number asked for (inputs × dimensions), on top of
 * `maxUpstreamBodyBytes`: a float printed in full (`-1.2345678901234567e-05`, 23 bytes) with the
 * indentation and line end of a pretty-printed answer (OpenAI's: 8 spaces, `,\n`) takes 33.
 */
export const EMBEDDING_BYTES_PER_NUMBER = 48;

/** Counts the bytes of one body as they arrive. */
export interface ByteMeter {
  /** Counts `chunk`; throws the `malformed_response` once the body is over its bound. */
  take(chunk: Uint8Array): void;
  /** A fresh copy of the error `take` threw, or undefined while under the bound (SDKs may rewrite the one thrown). */
  exceeded(): ProviderError | undefined;
}

/** The meters of one model: its subject names the route in every error. */
export interface AnswerMeters {
  /** A body read whole, allowed `extraBytes` more than `maxUpstreamBodyBytes` (embeddings). */
  body(extraBytes?: number): ByteMeter;
  /** A server-sent-event stream: each event is bounded, the stream as a whole is not. */
  sse(): ByteMeter;
  /** An AWS event stream (`application/vnd.amazon.eventstream`): each message is bounded. */
  eventStream(): ByteMeter;
}

/** Builds the meters of one model. */
export function createAnswerMeters(limits: AnswerLimits, subject: ErrorSubject): AnswerMeters {
  const failure = (detail: string) => () => malformedResponse(subject, detail);
  const eventDetail = `a stream event over ${limits.maxUpstreamEventBytes} bytes (limits.maxUpstreamEventBytes)`;
  return {
    body(extraBytes = 0) {
      const max = limits.maxUpstreamBodyBytes + extraBytes;
      return wholeBodyMeter(max, failure(`a body over ${max} bytes (limits.maxUpstreamBodyBytes)`));
    },
    sse: () => sseEventMeter(limits.maxUpstreamEventBytes, failure(eventDetail)),
    eventStream: () => eventStreamMeter(limits.maxUpstreamEventBytes, failure(eventDetail)),
  };
}

/** The part every meter shares: remember the failure, throw it. */
function meter(count: (chunk: Uint8Array) => boolean, fail: () => ProviderError): ByteMeter {
  let over = false;
  return {
    take(chunk) {
      if (over || !count(chunk)) {
        over = true;
        throw fail();
      }
    },
    exceeded: () => (over ? fail() : undefined),
  };
}

/** Over once the body's bytes pass `max` (exactly `max` passes). */
export function wholeBodyMeter(max: number, fail: () => ProviderError): ByteMeter {
  let total = 0;
  return meter((chunk) => {
    total += chunk.length;
    return total <= max;
  }, fail);
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Over once one SSE event passes `max` bytes: the bytes of its lines (comments and unknown fields
 * too, line ends not counted) from one blank line to the next. A line end is `\n`, `\r\n` or
 * `\r`, as the SSE grammar says; a stream that never sends a blank line is one event.
 */
export function sseEventMeter(max: number, fail: () => ProviderError): ByteMeter {
  let lineBytes = 0;
  let eventBytes = 0;
  let afterCR = false;
  return meter((chunk) => {
    const n = chunk.length;
    // Line ends are found with indexOf (native); each position is searched again only once passed.
    let nextLF = chunk.indexOf(LF);
    let nextCR = chunk.indexOf(CR);
    let i = 0;
    while (i < n) {
      if (nextLF !== -1 && nextLF < i) nextLF = chunk.indexOf(LF, i);
      if (nextCR !== -1 && nextCR < i) nextCR = chunk.indexOf(CR, i);
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      const content = (end === -1 ? n : end) - i;
      if (content > 0) {
        afterCR = false;
        lineBytes += content;
        eventBytes += content;
        if (eventBytes > max) return false;
      }
      if (end === -1) break;
      i = end + 1;
      // The `\n` of a `\r\n` ends no second line.
      if (chunk[end] === LF && afterCR && content === 0) {
        afterCR = false;
        continue;
      }
      if (lineBytes === 0) eventBytes = 0; // a blank line: the event is dispatched
      lineBytes = 0;
      afterCR = chunk[end] === CR;
    }
    return true;
  }, fail);
}

/**
 * Over once one AWS event-stream message declares more than `max` bytes: each message starts with
 * its total length (4 bytes, big-endian), so an oversized one is refused before its payload is read.
 */
export function eventStreamMeter(max: number, fail: () => ProviderError): ByteMeter {
  let remaining = 0; // bytes of the current message still to come
  let prelude = 0; // the length being read, and how many of its 4 bytes have come
  let preludeBytes = 0;
  return meter((chunk) => {
    let i = 0;
    while (i < chunk.length) {
      if (remaining > 0) {
        const n = Math.min(remaining, chunk.length - i);
        remaining -= n;
        i += n;
        continue;
      }
      prelude = prelude * 256 + (chunk[i] as number);
      preludeBytes++;
      i++;
      if (preludeBytes === 4) {
        if (prelude > max) return false;
        remaining = Math.max(0, prelude - 4);
        prelude = 0;
        preludeBytes = 0;
      }
    }
    return true;
  }, fail);
}
