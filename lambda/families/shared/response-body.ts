/**
 * Reading an OpenAI-compatible response from Node's `IncomingMessage`, as the openai SDK read it
 * from a `Response`: the same values and the same errors, without the web layers in between.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { APIError } from 'openai/error';
import { ProviderError } from '../../core/failures/provider-error.js';
import type { ByteMeter } from './answer-limits.js';
import { abortReason } from './http-transport.js';

/** The cause of a body whose connection closed before its end (undici says the same words). */
const closedEarly = () => Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });

/** The body's bytes, decoded as its `content-encoding` says (one coding; anything else passes through). */
export function decodedBody(res: IncomingMessage): Readable {
  const coding = res.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  return decoder ? pipeline(res, decoder, () => {}) : res;
}

/**
 * Every text piece of the body, in order, its decoded bytes counted by `meter` (a compressed
 * body is bounded by what it inflates to). Over the meter's bound the response is destroyed at
 * once (the socket closes, nothing more is read) and the meter's `malformed_response` is thrown.
 * A body cut before its end fails as undici's does (`TypeError('terminated')`); an aborted one
 * with the signal's reason.
 */
export async function* bodyText(
  res: IncomingMessage,
  signal: AbortSignal,
  meter: ByteMeter,
): AsyncGenerator<string> {
  const utf8 = new StringDecoder('utf8');
  try {
    for await (const bytes of decodedBody(res) as AsyncIterable<Buffer>) {
      meter.take(bytes);
      const piece = utf8.write(bytes);
      if (piece) yield piece;
    }
  } catch (error) {
    if (error instanceof ProviderError) {
      res.destroy();
      throw error;
    }
    throw signal.aborted ? abortReason(signal) : new TypeError('terminated', { cause: error });
  }
  if (signal.aborted) throw abortReason(signal);
  if (!res.complete) throw new TypeError('terminated', { cause: closedEarly() });
  const rest = utf8.end();
  if (rest) yield rest;
}

/**
 * The whole body as one string, bounded by `meter`, with {@link bodyText}'s errors. Read with
 * `data`/`end` listeners rather than an async iterator: a plain answer is usually one chunk, and
 * the iterator's promises and end-of-stream watchers cost more than the reading.
 */
export function readText(res: IncomingMessage, signal: AbortSignal, meter: ByteMeter): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const body = decodedBody(res);
    const utf8 = new StringDecoder('utf8');
    let text = '';
    let settled = false;
    const settle = (error: unknown, value?: string) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      if (error === undefined) resolve(value as string);
      else reject(error);
    };
    const onData = (bytes: Buffer) => {
      try {
        meter.take(bytes);
      } catch (error) {
        res.destroy();
        return settle(error);
      }
      text += utf8.write(bytes);
    };
    const failed = (cause: unknown) =>
      settle(signal.aborted ? abortReason(signal) : new TypeError('terminated', { cause }));
    body.on('data', onData);
    body.once('error', failed);
    body.once('end', () => {
      if (signal.aborted) return settle(abortReason(signal));
      if (!res.complete) return settle(new TypeError('terminated', { cause: closedEarly() }));
      settle(undefined, text + utf8.end());
    });
    body.once('close', () => failed(closedEarly()));
  });
}

/** The response headers as a web `Headers`, as the SDK's errors carry them (built on failures only). */
export function webHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  return headers;
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** True for a 2xx status, as `Response.ok`. */
export const isOk = (res: IncomingMessage) => (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;

/**
 * The error the SDK threw for a status outside 2xx: the body's `error` object when the body is
 * JSON, its text as the message when not (`APIError.generate` picks the class by status). A body
 * over `meter`'s bound is the meter's `malformed_response` instead, whatever the status.
 */
export async function statusError(
  res: IncomingMessage,
  signal: AbortSignal,
  meter: ByteMeter,
): Promise<Error> {
  let text: string;
  try {
    text = await readText(res, signal, meter);
  } catch (error) {
    if (error instanceof ProviderError) return error;
    text = error instanceof Error ? error.message : String(error);
  }
  const json = safeJson(text);
  return APIError.generate(
    res.statusCode,
    json as object | undefined,
    json ? undefined : text,
    webHeaders(res),
  );
}

/**
 * A whole non-streaming answer as the SDK parsed it: JSON when the content type says JSON (a
 * `SyntaxError` when it is not), `null` for a 204, `undefined` for an empty JSON body, else text.
 * The body is bounded by `meter`.
 */
export async function readAnswer(
  res: IncomingMessage,
  signal: AbortSignal,
  meter: ByteMeter,
): Promise<unknown> {
  if (res.statusCode === 204) {
    res.resume();
    return null;
  }
  const mediaType = res.headers['content-type']?.split(';')[0]?.trim();
  const isJson =
    mediaType !== undefined && (mediaType.includes('application/json') || mediaType.endsWith('+json'));
  if (isJson && res.headers['content-length'] === '0') {
    res.resume();
    return undefined;
  }
  const text = await readText(res, signal, meter);
  return isJson ? JSON.parse(text) : text;
}
