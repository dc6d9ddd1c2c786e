/**
 * Reading the upstream's `Retry-After` cooling hint (docs/design.md#the-failure-matrix: "honour Retry-After as a cooling
 * hint"). The hint only delays when a member becomes eligible again; it never makes the loop sleep,
 * so a missing or unreadable hint is simply `undefined`.
 */
import { errorChain, readProperty } from './extract-status.js';

/** `delay-seconds` of RFC 9110, plus the decimal seconds some gateways send (`1.5`). */
const SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * The three HTTP-date forms of RFC 9110 §5.6.7. `Date.parse` alone is too lenient (V8 reads
 * `"soon 12"` as a date in 2001), so the shape is checked first.
 */
const HTTP_DATE_FORMS = [
  /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/, // IMF-fixdate
  /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/, // obsolete RFC 850
  /^[A-Za-z]{3} [A-Za-z]{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/, // obsolete asctime
];

/** Keeps a computed delay only when it is a usable, non-negative number of ms. */
function toDelayMs(ms: number): number | undefined {
  if (!Number.isFinite(ms) || ms > Number.MAX_SAFE_INTEGER) return undefined;
  return Math.max(0, Math.ceil(ms));
}

/**
 * Parses a `Retry-After` header value.
 *
 * @param value the raw header: delay seconds (`"2"`, `"1.5"`) or an HTTP-date
 *   (`"Wed, 21 Oct 2015 07:28:00 GMT"`); `null`/`undefined` when the header is absent.
 * @param nowMs the current time in epoch ms, used to turn an HTTP-date into a delay.
 * @returns the delay in ms (a date in the past gives 0), or `undefined` for an absent or
 *   unparseable value (negative numbers, words, ISO dates).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (SECONDS.test(text)) return toDelayMs(Number(text) * 1000);
  if (!HTTP_DATE_FORMS.some((form) => form.test(text))) return undefined;
  // asctime carries no zone; HTTP dates are always GMT, so do not let the host's zone leak in.
  const at = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  return Number.isNaN(at) ? undefined : toDelayMs(at - nowMs);
}

/**
 * Parses a `retry-after-ms` header value (milliseconds, as sent by OpenAI and Azure OpenAI).
 *
 * @returns the delay in ms, or `undefined` for an absent or unparseable value.
 */
function parseRetryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  return SECONDS.test(text) ? toDelayMs(Number(text)) : undefined;
}

/** Turns a header value of any shape Node or fetch produce into one string. */
function headerText(value: unknown): string | undefined {
  if (Array.isArray(value)) return headerText(value[0]);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Reads one header, case-insensitively, from a web `Headers` (openai), a plain object (Smithy's
 * `HttpResponse.headers`, Node's `IncomingHttpHeaders`) or anything with a `get` method.
 */
function readHeader(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = readProperty(headers, 'get');
  if (typeof get === 'function') {
    try {
      return headerText(get.call(headers, name));
    } catch {
      return undefined;
    }
  }
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headerText(readProperty(headers, key));
  }
  return undefined;
}

/** The cooling hint in one header bag; the ms header wins because it is the more precise. */
function hintIn(headers: unknown, nowMs: number): number | undefined {
  return (
    parseRetryAfterMs(readHeader(headers, 'retry-after-ms')) ??
    parseRetryAfter(readHeader(headers, 'retry-after'), nowMs)
  );
}

/**
 * The `Retry-After` cooling hint of a thrown error, in ms. Looks at `headers` (openai's
 * `APIError.headers`), `response.headers` (fetch-style wrappers) and `$response.headers` (AWS SDK)
 * on the error and on every error nested in its `cause` / `errors[]`, outermost first.
 * `retry-after-ms` is preferred over `retry-after` when both are present.
 *
 * @param error anything that was thrown.
 * @param nowMs the current time in epoch ms (for HTTP-date values).
 * @returns the delay in ms, or `undefined` when no usable hint was sent.
 */
export function extractRetryAfterMs(error: unknown, nowMs: number): number | undefined {
  for (const { value } of errorChain(error)) {
    const holders = [value, readProperty(value, 'response'), readProperty(value, '$response')];
    for (const holder of holders) {
      const hint = hintIn(readProperty(holder, 'headers'), nowMs);
      if (hint !== undefined) return hint;
    }
  }
  return undefined;
}
