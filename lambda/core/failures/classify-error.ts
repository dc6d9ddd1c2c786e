/**
 * The failure matrix of docs/design.md#the-failure-matrix: turns whatever a provider SDK threw into one {@link FailureClass}.
 *
 * Pure and duck-typed: `lambda/core` imports no provider SDK, so errors are read by shape
 * (`status`, `$metadata.httpStatusCode`, `name`, `code`, `cause`), never by `instanceof`. The
 * names, codes and sentences each provider family uses come in as a {@link FailureSignals} table.
 * When nothing is recognised the answer is `unavailable`: falling back is the safe default, while
 * a wrong "stop" class would fail a request that another model could have served.
 */

import { couldBeCallerText } from './caller-text.js';
import { type ErrorNode, errorChain, extractStatus, readProperty } from './extract-status.js';
import { FAILURE_CLASSES, type FailureClass } from './failure-class.js';
import {
  CANCEL_CODES,
  CONTENT_POLICY,
  CONTEXT_LENGTH,
  type FailureSignals,
  GENERIC,
  GENERIC_REQUEST_CODES,
  GENERIC_SIGNALS,
  NETWORK_CODES,
  PASS_THROUGH,
  REQUEST,
  TIMEOUT_CODES,
} from './failure-signals.js';
import { redactSecrets } from './redact-secrets.js';
import { extractRetryAfterMs } from './retry-after.js';

/** The verdict on one failed attempt. */
export interface Classification {
  /** Where the failure falls in the matrix; `FAILURE_POLICY` says what the loop does next. */
  failureClass: FailureClass;
  /** Upstream HTTP status, when the error carried one. */
  status?: number;
  /** `Retry-After` cooling hint in ms, when the upstream sent one. */
  retryAfterMs?: number;
  /**
   * A message safe to show the caller, at most {@link MAX_MESSAGE_LENGTH} characters, secrets
   * redacted. The upstream's own message for `invalid_request`, `context_length` and
   * `content_policy`; a generic description such as `upstream rate limited (429)` otherwise.
   */
  message: string;
}

/** What the classifier may know about the attempt besides the error. */
export interface ClassifyOptions {
  /**
   * The request as the caller sent it (any JSON-like value, e.g. the `ChatRequest`). Message text
   * may only refine a 400 into `model_not_found` when it provably did not come from this input;
   * when absent, message text never decides a quarantine class.
   */
  callerInput?: unknown;
  /**
   * The evidence tables to judge by: the family's rows plus the generic ones (`withSignals`).
   * Default {@link GENERIC_SIGNALS}: statuses, Node transport codes and message patterns only.
   */
  signals?: FailureSignals | undefined;
}

/** Longest message a {@link Classification} carries, in characters. */
export const MAX_MESSAGE_LENGTH = 500;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** `name` and constructor name: some SDKs' errors keep `name === 'Error'` and differ only by class. */
function typeNames(value: object): string[] {
  const ctor = readProperty(value, 'constructor');
  return [text(readProperty(value, 'name')), text(readProperty(ctor, 'name'))].filter(
    (name): name is string => name !== undefined,
  );
}

/**
 * `code` and `type` of each error, of the JSON error body an SDK keeps in `error`, and of the
 * error inside an envelope (`{type: "error", error: {type, message}}`), whose own
 * `type: "error"` says nothing and is left out.
 */
function codesOf(value: object): string[] {
  const body = readProperty(value, 'error');
  return [value, body, readProperty(body, 'error')]
    .flatMap((holder) => [readProperty(holder, 'code'), readProperty(holder, 'type')])
    .flatMap((code) => (typeof code === 'string' && code !== 'error' ? [code.toLowerCase()] : []));
}

function upstreamMessage(nodes: readonly ErrorNode[], status: number | undefined): string | undefined {
  for (const { value } of nodes) {
    const envelope = readProperty(value, 'error');
    // Some SDKs keep `{message}` in `error`; others keep a whole envelope `{type, error: {message}}`.
    const body =
      text(readProperty(envelope, 'message')) ??
      text(readProperty(readProperty(envelope, 'error'), 'message'));
    const own = text(readProperty(value, 'message')) ?? text(readProperty(value, 'Message'));
    // Some SDKs prefix the status ("400 This model's maximum…"); the caller gets the status separately.
    const message = body ?? (status === undefined ? own : own?.replace(new RegExp(`^${status} `), ''));
    if (message !== undefined) return message;
  }
  return undefined;
}

/**
 * A misconfigured route told only by the message: the error carries no specific code, the message
 * starts with a known provider sentence, and that sentence is not something the caller wrote.
 */
function modelMissingByMessage(
  codes: readonly string[],
  message: string,
  callerInput: unknown,
  signals: FailureSignals,
): boolean {
  if (codes.some((code) => !GENERIC_REQUEST_CODES.has(code))) return false;
  for (const rule of signals.modelMissing) {
    const match = rule.exec(message);
    if (match && !couldBeCallerText(match[0], callerInput)) return true;
  }
  return false;
}

/**
 * Splits a request-shaped failure into the three "stop" classes, or a misconfigured route. Text
 * may pick a stop class (they cost only the caller's own request), but a quarantine class only
 * through {@link modelMissingByMessage}.
 */
function refineRequest(
  codes: readonly string[],
  message: string,
  callerInput: unknown,
  signals: FailureSignals,
): FailureClass {
  for (const code of codes) {
    const byCode = signals.codes.get(code);
    if (byCode === 'context_length' || byCode === 'content_policy' || byCode === 'model_not_found') {
      return byCode;
    }
  }
  if (CONTENT_POLICY.some((rule) => rule.test(message))) return 'content_policy';
  if (CONTEXT_LENGTH.some((rule) => rule.test(message))) return 'context_length';
  if (modelMissingByMessage(codes, message, callerInput, signals)) return 'model_not_found';
  return 'invalid_request';
}

function byStatus(
  status: number,
  codes: readonly string[],
  message: string,
  callerInput: unknown,
  signals: FailureSignals,
): FailureClass {
  if (status === 429)
    return codes.some((code) => signals.quotaCodes.has(code)) ? 'upstream_auth' : 'rate_limited';
  if (status === 408) return 'timeout';
  // 402 is our account's billing (out of credits): quarantine and alert, never the caller's fault.
  if (status === 401 || status === 402 || status === 403) return 'upstream_auth';
  if (status === 404) return 'model_not_found';
  if (status >= 500) return 'unavailable';
  return refineRequest(codes, message, callerInput, signals);
}

/** Class of one error object judged by transport signals: Node `code`, then `name`, then message. */
function transportClass(value: object, signals: FailureSignals): FailureClass | undefined {
  const code = readProperty(value, 'code');
  // The code goes first: Smithy renames ECONNRESET/EPIPE errors to `TimeoutError` to mark them retryable.
  if (typeof code === 'string') {
    if (TIMEOUT_CODES.has(code)) return 'timeout';
    if (CANCEL_CODES.has(code)) return 'cancelled';
    if (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_') || code.startsWith('ERR_HTTP2_')) {
      return 'network';
    }
  }
  for (const name of typeNames(value)) {
    const byName = signals.transportNames.get(name);
    if (byName !== undefined) return byName;
  }
  const message = readProperty(value, 'message');
  return typeof message === 'string' ? signals.transportMessages.get(message) : undefined;
}

/** The class a `ProviderError`-like error already carries: an adapter decided, so it is kept. */
function carriedClass(value: object): FailureClass | undefined {
  const carried = readProperty(value, 'failureClass');
  return FAILURE_CLASSES.find((failureClass) => failureClass === carried);
}

/** The class of an SDK error (no carried class): names, then status, then codes, then transport. */
function decide(
  nodes: readonly ErrorNode[],
  status: number | undefined,
  message: string,
  callerInput: unknown,
  signals: FailureSignals,
): FailureClass {
  const codes = nodes.flatMap((node) => codesOf(node.value));
  for (const { value } of nodes) {
    for (const name of typeNames(value)) {
      const named = signals.named.get(name);
      if (named === REQUEST) return refineRequest(codes, message, callerInput, signals);
      if (named !== undefined) return named;
    }
  }
  if (status !== undefined && status >= 400) return byStatus(status, codes, message, callerInput, signals);
  for (const code of codes) {
    const byCode = signals.codes.get(code);
    if (byCode === REQUEST) return refineRequest(codes, message, callerInput, signals);
    if (byCode !== undefined) return byCode;
  }
  // The deepest recognised error is the root cause: AbortError(cause: TimeoutError) timed out.
  let best: { failureClass: FailureClass; depth: number } | undefined;
  for (const { value, depth } of nodes) {
    const found = transportClass(value, signals);
    if (found !== undefined && (best === undefined || depth > best.depth)) {
      best = { failureClass: found, depth };
    }
  }
  return best?.failureClass ?? 'unavailable';
}

/** Redacts, flattens to one line and caps a message before it can reach a caller or a log. */
function safeMessage(raw: string): string {
  const flat = redactSecrets(raw).replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_MESSAGE_LENGTH ? flat : `${flat.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** The first Node-style error code in the chain, shown with generic messages (`ECONNRESET`). */
function firstNodeCode(nodes: readonly ErrorNode[]): string | undefined {
  for (const { value } of nodes) {
    const code = readProperty(value, 'code');
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,40}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Classifies a failed upstream call by the failure matrix of docs/design.md#the-failure-matrix.
 *
 * Order of evidence: a `failureClass` already carried by a `ProviderError`-like error; the
 * family's exception names (some upstreams' statuses are ambiguous); the HTTP status (refined for 4xx by the
 * upstream code and message: context window, content policy, misconfigured model id); an error
 * `code` without status (stream error events); finally transport signals — Node `code`, error
 * `name` — where the deepest error in the `cause` chain wins. Anything else is `unavailable`.
 *
 * @param error anything that was thrown by a provider call.
 * Quarantine classes (`upstream_auth`, `model_not_found`) come from statuses, exception names and
 * error codes. Message text decides one only for a code-less 400 that starts with a known
 * provider sentence the caller did not write (see {@link ClassifyOptions.callerInput}).
 *
 * @param nowMs the current time in epoch ms, for `Retry-After` dates.
 * @param options what else is known about the attempt; default none.
 * @returns the class, the status and cooling hint when present, and a caller-safe message.
 */
export function classifyError(error: unknown, nowMs: number, options: ClassifyOptions = {}): Classification {
  const nodes = errorChain(error);
  const status = extractStatus(error);
  const upstream = upstreamMessage(nodes, status);
  const carrier = nodes.find((node) => carriedClass(node.value) !== undefined)?.value;
  const failureClass =
    (carrier === undefined ? undefined : carriedClass(carrier)) ??
    decide(nodes, status, upstream ?? '', options.callerInput, options.signals ?? GENERIC_SIGNALS);

  const detail = status ?? firstNodeCode(nodes);
  const generic = detail === undefined ? GENERIC[failureClass] : `${GENERIC[failureClass]} (${detail})`;
  const passed = PASS_THROUGH.has(failureClass) ? (upstream ?? generic) : generic;
  // A carrier's message was written for the caller by an adapter; it is still redacted and capped.
  const raw = (carrier === undefined ? undefined : text(readProperty(carrier, 'message'))) ?? passed;
  const carriedHint = readProperty(carrier, 'retryAfterMs');
  const retryAfterMs =
    typeof carriedHint === 'number' && carriedHint >= 0 ? carriedHint : extractRetryAfterMs(error, nowMs);

  const result: Classification = { failureClass, message: safeMessage(raw) };
  // A 2xx with a body we cannot read is a failure; its status would read as success in the trail.
  if (status !== undefined && status >= 400) result.status = status;
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  return result;
}
