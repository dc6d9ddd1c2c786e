import { CAPABILITIES } from '../capabilities/capability.js';
import { unsupportedLabel } from '../capabilities/route-fit.js';
import { FAILURE_POLICY } from '../failures/failure-class.js';
import type { ProviderError } from '../failures/provider-error.js';
import type { RouteFailure } from './route-types.js';

/** What the caller finally sees when a request did not succeed (docs/design.md#the-failure-matrix, last column). */
export interface TerminalError {
  /** HTTP status for the caller. */
  status: number;
  /** The default error envelope's `type` (a door with another envelope maps it by status). */
  type: 'invalid_request_error' | 'rate_limit_error' | 'api_error' | 'timeout_error' | 'cancelled';
  /** The default error envelope's `code`. */
  code: string;
  message: string;
  /** Seconds for a `Retry-After` header; set when every route was rate limited, full or out of quota. */
  retryAfterSeconds?: number | undefined;
}

/**
 * One clear terminal error naming the route trail. When the last answer failed its structured
 * output check, the caller gets 502 `schema_invalid` with the validation errors. Non-fallback failures pass the upstream's own
 * message through, so a bad request reads the same as it would without Switchyard.
 *
 * When no attempt could be sent because no provider of the chain has a key in this process
 * (every attempt `not_configured`), the caller gets 503 `api_error` with code
 * `provider_not_configured`, naming the providers and, where the process's key access names one,
 * the variable to set (`'openai' (set OPENAI_API_KEY)`; never a key, never a deployment's secret). Local
 * failures are left out when judging the upstream answers: a chain whose every reachable route
 * said 429 still answers 429.
 *
 * When the pipeline's `substitution: forbid` or `maxTier` kept the request from trying later
 * tiers and every route it may use failed, the status is the same, the code names the limit.
 */
export function terminalError(failure: RouteFailure, pipeline: string): TerminalError {
  const error = upstreamTerminalError(failure, pipeline);
  return failure.limit && LIMITABLE_CODES.has(error.code) ? limitError(failure, pipeline, error) : error;
}

/** Codes that mean "every allowed route failed": with a limit in force, the limit is named instead. */
const LIMITABLE_CODES = new Set([
  'no_route',
  'all_routes_rate_limited',
  'all_routes_unavailable',
  'all_routes_failed',
]);

/**
 * A request the pipeline's limits kept from degrading (docs/design.md#the-failure-matrix): the
 * status stays what the allowed routes earned (429 with `Retry-After`, 503 or 502), the code and
 * message name the limit: `substitution_forbidden` or `max_tier_reached`.
 */
function limitError(failure: RouteFailure, pipeline: string, error: TerminalError): TerminalError {
  const trail = failure.route ? `; route: ${failure.route}` : '';
  const tried = `every route it may use failed after ${failure.attempts.length} attempt(s)${trail}`;
  if (failure.limit?.setting === 'substitution') {
    return {
      ...error,
      code: 'substitution_forbidden',
      message: `pipeline '${pipeline}' forbids substitution (substitution: forbid): only its first tier's models may answer, and ${tried}`,
    };
  }
  return {
    ...error,
    code: 'max_tier_reached',
    message: `pipeline '${pipeline}' may not degrade past tier ${failure.limit?.maxTier} (maxTier: ${failure.limit?.maxTier}), and ${tried}`,
  };
}

function upstreamTerminalError(failure: RouteFailure, pipeline: string): TerminalError {
  const { error, attempts, route } = failure;
  const trail = route ? `; route: ${route}` : '';
  if (failure.reason === 'cancelled') {
    return { status: 499, type: 'cancelled', code: 'cancelled', message: 'the caller went away' };
  }
  if (failure.reason === 'stopped' && error) {
    return { status: 400, type: 'invalid_request_error', code: stoppedCode(error), message: error.message };
  }
  // Routes were full or out of quota and nothing reached an upstream: say so, and when to come back.
  if (failure.capacity && attempts.every((a) => a.outcome !== 'ok' && FAILURE_POLICY[a.outcome].local)) {
    return capacityError(failure, pipeline);
  }
  if (attempts.length === 0 && failure.reason === 'exhausted' && failure.unsupported) {
    return unsupportedError(failure.unsupported, pipeline);
  }
  if (attempts.length === 0 && failure.reason !== 'deadline') {
    return {
      status: 503,
      type: 'api_error',
      code: 'no_route',
      message: `pipeline '${pipeline}' has no model that can be called`,
    };
  }
  const upstream = attempts.filter((a) => a.outcome === 'ok' || !FAILURE_POLICY[a.outcome].local);
  if (attempts.length > 0 && upstream.length === 0) {
    const providers = [...new Set(attempts.map((a) => a.provider))]
      .map((p) => {
        const setting = failure.unconfigured?.get(p);
        return setting ? `'${p}' (set ${setting})` : `'${p}'`;
      })
      .join(', ');
    return {
      status: 503,
      type: 'api_error',
      code: 'provider_not_configured',
      message: `pipeline '${pipeline}' has no model that can be called here: no API key is configured for provider(s) ${providers}${trail}`,
    };
  }
  const message = `all routes failed for pipeline '${pipeline}' after ${attempts.length} attempt(s)${trail}`;
  // Every route said "slow down": the caller should too, whether or not the deadline ran out meanwhile.
  if (upstream.length > 0 && upstream.every((a) => a.outcome === 'rate_limited')) {
    return allRateLimited(upstream, message);
  }
  // Answers came back, but none matched the caller's format: say why (the errors name JSON paths, never answer text).
  if (error?.failureClass === 'schema_invalid') {
    return {
      status: 502,
      type: 'api_error',
      code: 'schema_invalid',
      message: `pipeline '${pipeline}' got no answer in the requested JSON format after ${attempts.length} attempt(s): ${error.message}${trail}`,
    };
  }
  if (failure.reason === 'deadline') {
    return {
      status: 504,
      type: 'timeout_error',
      code: 'deadline_exceeded',
      message: `pipeline '${pipeline}' spent its deadline after ${attempts.length} attempt(s)${trail}`,
    };
  }
  if (upstream.every((a) => a.outcome === 'unavailable')) {
    return { status: 503, type: 'api_error', code: 'all_routes_unavailable', message };
  }
  return { status: 502, type: 'api_error', code: 'all_routes_failed', message };
}

/**
 * No attempt could be sent because every route the request could still call was at its bulkhead
 * (503 `capacity_exhausted`) or its declared quota (429 `route_quota_exhausted`), with the soonest
 * `Retry-After` (docs/concepts.md#bulkheads).
 */
function capacityError(failure: RouteFailure, pipeline: string): TerminalError {
  const refusal = failure.capacity as NonNullable<RouteFailure['capacity']>;
  const retryAfterSeconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  const trail = failure.route ? `; route: ${failure.route}` : '';
  if (refusal.reason === 'quota') {
    return {
      status: 429,
      type: 'rate_limit_error',
      code: 'route_quota_exhausted',
      message: `every route of pipeline '${pipeline}' has spent its declared quota for now${trail}`,
      retryAfterSeconds,
    };
  }
  return {
    status: 503,
    type: 'api_error',
    code: 'capacity_exhausted',
    message: `every route of pipeline '${pipeline}' is at its in-flight limit (maxInFlight)${trail}`,
    retryAfterSeconds,
  };
}

/** 429 with the soonest `Retry-After` any route gave, in whole seconds (at least 1). */
function allRateLimited(upstream: RouteFailure['attempts'], message: string): TerminalError {
  const hints = upstream.map((a) => a.retryAfterMs).filter((ms): ms is number => ms !== undefined && ms > 0);
  const retryAfterSeconds = hints.length > 0 ? Math.max(1, Math.ceil(Math.min(...hints) / 1000)) : 1;
  return {
    status: 429,
    type: 'rate_limit_error',
    code: 'all_routes_rate_limited',
    message,
    retryAfterSeconds,
  };
}

/** The envelope `code` of a request stopped by a failure that must not be hidden. */
function stoppedCode(error: ProviderError): string {
  if (error.failureClass === 'context_length') return 'context_length_exceeded';
  if (error.failureClass === 'content_policy') return 'content_policy_violation';
  return 'invalid_request';
}

/**
 * No route of the allowed tiers can carry what the request needs (docs/concepts.md#capabilities):
 * 400 `unsupported_capability`, naming the capabilities and, per route, what it lacks. A retry
 * cannot change it: the request or the chain must.
 */
function unsupportedError(skips: NonNullable<RouteFailure['unsupported']>, pipeline: string): TerminalError {
  const lacking = new Set(skips.flatMap((s) => s.missing));
  const needs = CAPABILITIES.filter((c) => lacking.has(c)).join('+');
  const routes = skips.map((s) => `${s.route}: ${unsupportedLabel(s.missing)}`).join(', ');
  return {
    status: 400,
    type: 'invalid_request_error',
    code: 'unsupported_capability',
    message: `no route of pipeline '${pipeline}' can carry what this request needs (${needs}); routes: ${routes}`,
  };
}
