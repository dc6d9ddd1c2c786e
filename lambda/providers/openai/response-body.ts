/**
 * Reading an OpenAI-compatible response from Node's `IncomingMessage`, as the openai SDK read it
 * from a `Response`: the same values and the same errors, without the web layers in between.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { APIError } from 'openai/error';
import { abortReason } from './http-transport.js';

/** The cause of a body whose connection closed before its end (undici says the same words). */
const closedEarly = () => Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });

/** The body as text, decoded as its `content-encoding` says (one coding; anything else passes through). */
export function decodedText(res: IncomingMessage): Readable {
  const coding = res.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const source: Readable = decoder ? pipeline(res, decoder, () => {}) : res;
  source.setEncoding('utf8');
  return source;
}

/**
 * Every text piece of the body, in order. A body cut before its end fails as undici's does
 * (`TypeError('terminated')`); an aborted one with the signal's reason.
 */
export async function* bodyText(res: IncomingMessage, signal: AbortSignal): AsyncGenerator<string> {
  try {
    for await (const piece of decodedText(res)) yield piece as string;
  } catch (error) {
    throw signal.aborted ? abortReason(signal) : new TypeError('terminated', { cause: error });
  }
  if (signal.aborted) throw abortReason(signal);
  if (!res.complete) throw new TypeError('terminated', { cause: closedEarly() });
}

/** The whole body as one string. */
export async function readText(res: IncomingMessage, signal: AbortSignal): Promise<string> {
  let text = '';
  for await (const piece of bodyText(res, signal)) text += piece;
  return text;
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
 * JSON, its text as the message when not (`APIError.generate` picks the class by status).
 */
export async function statusError(res: IncomingMessage, signal: AbortSignal): Promise<Error> {
  const text = await readText(res, signal).catch((error: unknown) =>
    error instanceof Error ? error.message : String(error),
  );
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
 */
export async function readAnswer(res: IncomingMessage, signal: AbortSignal): Promise<unknown> {
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
  const text = await readText(res, signal);
  return isJson ? JSON.parse(text) : text;
}
