/**
 * A local failure is never a route's failure (docs/security.md#threat-model). Whatever fails
 * while a request is turned into the upstream's wire body — our conversion, `JSON.stringify`, an
 * SDK's own serialiser — fails before anything left this process, and fails again for the same
 * request on any route: it is the caller's `invalid_request` (a 400, no fallback), never counted
 * by a breaker, a route cooling or an alert. The edge's nesting bound (`limits.maxJsonDepth`)
 * keeps such bodies out; this is the second line, for what the edge cannot foresee (an SDK's
 * limits, a job stored before the bound).
 */
import { deepestPath, shownPath } from '../../core/chat/json-depth.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import type { ErrorSubject } from './malformed-response.js';

/** Keys of the wire body shown in a message are cut to this many characters (`limits.maxEchoChars`' default). */
const SHOWN_KEY_CHARS = 128;

/**
 * The caller's `invalid_request` for a request that could not be prepared. The message names the
 * step, the error's name, and for a stack overflow where the wire body nests deepest; never the
 * error's own text, which may quote the request.
 */
export function unsendableRequest(
  subject: ErrorSubject,
  step: string,
  error: unknown,
  wire?: unknown,
): ProviderError {
  const name = error instanceof Error ? error.name : typeof error;
  let where = '';
  if (error instanceof RangeError && wire !== undefined) {
    const { depth, path } = deepestPath(wire);
    where = `; the ${step === 'serialise' ? 'wire body' : 'request'} nests ${depth} levels deep at ${shownPath(path, SHOWN_KEY_CHARS) || 'its top'}`;
  }
  return new ProviderError({
    ...subject,
    failureClass: 'invalid_request',
    message: `the request could not be prepared for provider '${subject.provider}' (${step} failed: ${name}${where}); nothing was sent`,
    cause: error,
  });
}

/** Runs one local step of preparing a request; a `ProviderError` passes as is, anything else is {@link unsendableRequest}. */
export function prepareLocally<T>(subject: ErrorSubject, step: string, run: () => T, wire?: unknown): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw unsendableRequest(subject, step, error, wire);
  }
}

/** `JSON.stringify` of a wire body we send ourselves; a failure is the request's. */
export function serialiseWire(subject: ErrorSubject, wire: unknown): string {
  return prepareLocally(subject, 'serialise', () => JSON.stringify(wire), wire);
}

/**
 * Where an SDK call got to, for a failure thrown from inside the SDK: the adapter marks the start
 * and the end of the SDK's own serialisation (`serialising`, `serialised`) from the SDK's hooks, and
 * `judge` turns a failure between the two into {@link unsendableRequest}. Anything else — before
 * (credentials, endpoint) or after (the transport, the upstream's answer) — is left to the
 * classifier as it is.
 */
export interface SerialisationWatch {
  serialising(): void;
  serialised(): void;
  judge(error: unknown): unknown;
}

/** One watch per SDK call; `wire` is the input the SDK serialises (named in the message). */
export function watchSerialisation(subject: ErrorSubject, wire: unknown): SerialisationWatch {
  let started = false;
  let done = false;
  return {
    serialising: () => {
      started = true;
    },
    serialised: () => {
      done = true;
    },
    judge: (error) =>
      started && !done && !(error instanceof ProviderError)
        ? unsendableRequest(subject, 'serialise', error, wire)
        : error,
  };
}
