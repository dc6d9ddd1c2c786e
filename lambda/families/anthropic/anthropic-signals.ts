/** The failure-matrix rows of the Anthropic Messages API: the `error.type` of its envelope. */
import { type FailureSignals, REQUEST, withSignals } from '../../core/failures/failure-signals.js';
import { HTTP_TRANSPORT_SIGNALS } from '../shared/http-signals.js';

export const ANTHROPIC_SIGNALS: FailureSignals = withSignals(HTTP_TRANSPORT_SIGNALS, {
  codes: new Map([
    ['invalid_request_error', REQUEST],
    ['rate_limit_error', 'rate_limited'],
    ['overloaded_error', 'unavailable'],
    ['api_error', 'unavailable'],
    ['authentication_error', 'upstream_auth'],
    ['permission_error', 'upstream_auth'],
    ['billing_error', 'upstream_auth'],
    ['not_found_error', 'model_not_found'],
    ['request_too_large', REQUEST],
  ]),
});
