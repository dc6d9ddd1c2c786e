import { ProviderError } from '../../core/failures/provider-error.js';
import type { ErrorSubject } from '../shared/malformed-response.js';

/**
 * Where the AWS SDK's default provider chain looks for credentials, as an operator sets them.
 * Named in every missing-credential message and by `probe`/`doctor`; never a value.
 */
export const AWS_CREDENTIAL_HINT =
  'set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, or run with an IAM role';

/**
 * The SDK's "no credentials" failure as this process's configuration problem: `not_configured`
 * (local, no breaker write, no alert), naming what is missing and never the SDK's own text,
 * which may quote a profile file. The SDK raises `CredentialsProviderError` when every link of
 * its chain (env, profile files, SSO, web identity, container, instance metadata) came up
 * empty; upstream refusals of credentials it did send (`UnrecognizedClientException`…) are
 * other names and stay `upstream_auth`. Anything else is returned as it is.
 */
export function missingCredentials(error: unknown, subject: ErrorSubject): unknown {
  if (!(error instanceof Error) || error.name !== 'CredentialsProviderError') return error;
  return new ProviderError({
    ...subject,
    failureClass: 'not_configured',
    message: `no AWS credentials found for provider '${subject.provider}' (${AWS_CREDENTIAL_HINT})`,
  });
}
