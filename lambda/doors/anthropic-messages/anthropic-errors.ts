/**
 * Anthropic's error envelope for the `/v1/messages` front door. Every layer of the app (caller
 * keys, body limit, validation, routing, admission, the terminal error) answers in the OpenAI
 * envelope; this one middleware, outermost on `/v1/messages`, rewrites those answers, so the
 * rules stay in one place whichever door a request came through.
 */
import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from '../../http/http-env.js';

/** Anthropic's envelope: `{type: "error", error: {type, message}, request_id}`. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string;
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The Anthropic error type of a status: the documented ones, else `api_error` (5xx) or `invalid_request_error`. */
export function anthropicErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The message of an OpenAI envelope, or undefined when the body is not one. */
async function openAIMessage(res: Response): Promise<string | undefined> {
  if (!res.headers.get('content-type')?.includes('application/json')) return undefined;
  try {
    const body: unknown = await res.clone().json();
    const error = (body as { error?: { message?: unknown } } | null)?.error;
    return typeof error?.message === 'string' ? error.message : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites an OpenAI-envelope error answer into Anthropic's, keeping its status and headers. */
export const anthropicErrors: MiddlewareHandler<HttpEnv> = async (c, next) => {
  await next();
  if (c.res.status < 400) return;
  const message = await openAIMessage(c.res);
  if (message === undefined) return;
  const body: AnthropicErrorBody = {
    type: 'error',
    error: { type: anthropicErrorType(c.res.status), message },
    request_id: c.get('requestId'),
  };
  c.res = new Response(JSON.stringify(body), {
    status: c.res.status,
    headers: { 'content-type': 'application/json' },
  });
};
