import { ProviderError } from '../core/failures/provider-error.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteSuccess } from '../core/router/route-types.js';

/** What a committed stream's upstream threw, as a `ProviderError` (anything else is a `network` failure). */
export function asProviderError(route: RouteSuccess<CommittedStream>, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  return new ProviderError({
    provider: route.provider,
    model: route.model,
    failureClass: 'network',
    message: 'upstream stream failed',
    cause: error,
  });
}

/** The failure of a stream that went silent for `ms`; keeps the prompt count the upstream reported, if any. */
export function silenceError(
  route: RouteSuccess<CommittedStream>,
  ms: number,
  thrown: unknown,
): ProviderError {
  const silence = new ProviderError({
    provider: route.provider,
    model: route.model,
    failureClass: 'timeout',
    timeoutPhase: 'idle',
    message: `no output for ${ms} ms`,
  });
  if (thrown instanceof ProviderError) silence.reportedInputTokens = thrown.reportedInputTokens;
  return silence;
}
