/** The failure-matrix rows of OpenAI-compatible endpoints: their error codes, helper errors and model sentences. */
import { type FailureSignals, REQUEST, withSignals } from '../../core/failures/failure-signals.js';
import { HTTP_TRANSPORT_SIGNALS } from '../shared/http-signals.js';

export const OPENAI_COMPATIBLE_SIGNALS: FailureSignals = withSignals(HTTP_TRANSPORT_SIGNALS, {
  // The `openai` package's finish-reason helpers.
  named: new Map([
    ['ContentFilterFinishReasonError', 'content_policy'],
    ['LengthFinishReasonError', 'malformed_response'],
  ]),
  // The error body's `code` / `type`.
  codes: new Map([
    ['context_length_exceeded', 'context_length'],
    ['content_filter', 'content_policy'],
    ['content_policy_violation', 'content_policy'],
    ['model_not_found', 'model_not_found'],
    // Billing, not a transient limit: it will not clear in a breaker window and needs a human.
    ['insufficient_quota', 'upstream_auth'],
    ['invalid_api_key', 'upstream_auth'],
    ['rate_limit_exceeded', 'rate_limited'],
    ['server_error', 'unavailable'],
    ['invalid_request_error', REQUEST],
  ]),
  quotaCodes: new Set(['insufficient_quota']),
  // OpenAI's and the compatible hosts' (OpenRouter, Together) "no such model" sentences.
  modelMissing: [
    /^(?:the )?model [`'"]?[\w.:/@-]{1,200}[`'"]? (?:does not exist|is not found|not found)\b/i,
    /^[`'"]?[\w.:/@-]{1,200}[`'"]? is not a valid model id\b/i,
  ],
});
