/** How an admission refusal reads on the wire, in the app's default (OpenAI) envelope. */
import type { Refusal } from '../../core/admission/admission.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';

const UNITS = { requests: 'requests per minute', tokens: 'tokens per minute', spend: 'US$ per UTC day' };

/** The caller's view of a refusal: 429 (503 for a fail-closed store) with `Retry-After`. */
export function refusalResponse(refusal: Refusal, now: number): Response {
  const { limit } = refusal;
  const retryAfter = String(Math.max(1, Math.ceil((refusal.resetAt - now) / 1000)));
  const headers = { 'retry-after': retryAfter };
  const resets = new Date(refusal.resetAt).toISOString();
  const who = `${limit.scope} '${limit.name}'`;
  if (refusal.reason === 'unavailable') {
    const message = `the admission store is unreachable and ${limit.field} fails closed; retry after ${retryAfter} s`;
    return errorResponse(503, errorBody(message, 'api_error', 'admission_unavailable', limit.field), headers);
  }
  const cap = limit.kind === 'spend' ? limit.cap / 1e9 : limit.cap;
  const message = `${who} has reached its limit of ${cap} ${UNITS[limit.kind]} (${limit.field}); it resets at ${resets}`;
  const code = refusal.reason === 'budget' ? 'budget_exceeded' : 'rate_limit_exceeded';
  return errorResponse(429, errorBody(message, 'rate_limit_error', code, limit.field), headers);
}
