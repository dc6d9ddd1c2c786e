import { ProviderError } from '../../core/failures/provider-error.js';

/** Who failed: the provider name and the model KEY (never the raw upstream id). */
export interface ErrorSubject {
  /** Provider name from the config, e.g. `openai`. */
  provider: string;
  /** Model key from the catalog, e.g. `gpt-mini`. */
  model: string;
}

/** A `malformed_response` error: the upstream answered, but not in the shape its protocol promises. */
export function malformedResponse(subject: ErrorSubject, message: string, cause?: unknown): ProviderError {
  return new ProviderError({
    provider: subject.provider,
    model: subject.model,
    failureClass: 'malformed_response',
    message: `malformed upstream response: ${message}`,
    cause,
  });
}
