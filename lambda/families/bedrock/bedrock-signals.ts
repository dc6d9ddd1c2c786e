/**
 * The failure-matrix rows of the Bedrock Runtime client: AWS SDK exception names and Bedrock's
 * own "no such model" sentences. Names win over the status because Bedrock's statuses mislead:
 * ServiceQuotaExceededException is a 400 (a quota, not a bad request), ModelNotReadyException a
 * 429 (capacity, not our rate), ModelErrorException a 424.
 */
import { type FailureSignals, REQUEST, withSignals } from '../../core/failures/failure-signals.js';

export const BEDROCK_SIGNALS: FailureSignals = withSignals({
  named: new Map([
    ['ThrottlingException', 'rate_limited'],
    ['TooManyRequestsException', 'rate_limited'],
    ['ServiceQuotaExceededException', 'rate_limited'],
    ['ModelNotReadyException', 'unavailable'],
    ['ServiceUnavailableException', 'unavailable'],
    ['InternalServerException', 'unavailable'],
    ['InternalFailure', 'unavailable'],
    ['ModelErrorException', 'unavailable'],
    ['ModelStreamErrorException', 'unavailable'],
    ['ModelTimeoutException', 'timeout'],
    ['AccessDeniedException', 'upstream_auth'],
    ['UnrecognizedClientException', 'upstream_auth'],
    ['ExpiredTokenException', 'upstream_auth'],
    ['InvalidSignatureException', 'upstream_auth'],
    // The SDK found no credentials to sign with: our configuration, not the upstream's refusal.
    // The adapter turns it into a message naming the variables first (bedrock-credentials.ts).
    ['CredentialsProviderError', 'not_configured'],
    ['ResourceNotFoundException', 'model_not_found'],
    ['ValidationException', REQUEST],
    ['ConflictException', REQUEST],
  ]),
  modelMissing: [
    /^(?:the )?provided model identifier is invalid\b/i,
    /^invocation of model id \S{1,200} with on-demand throughput isn.t supported\b/i,
    /^this model version has reached the end of its life\b/i,
  ],
});
