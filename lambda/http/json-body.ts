import type { MiddlewareHandler } from 'hono';
import type * as z from 'zod';
import { formatPath } from '../core/catalog/parse-config.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse, type OpenAIErrorBody } from './openai-errors.js';

/** The Hono input a {@link jsonBody} route declares: `c.req.valid('json')` has the schema's output type. */
export interface JsonBodyInput<S extends z.ZodType<object>> {
  in: { json: z.input<S> };
  out: { json: z.output<S> };
}

/** 400 `invalid_json`: the body is not JSON at all (`detail` is the parser's own words). */
function notJsonBody(error: unknown): OpenAIErrorBody {
  const detail = error instanceof SyntaxError ? error.message : 'unreadable body';
  return errorBody(`request body is not valid JSON: ${detail}`, 'invalid_request_error', 'invalid_json');
}

/** 400 `invalid_value` for the first issue zod found, naming the field (`param`) in the message too. */
function invalidBody(error: z.ZodError): OpenAIErrorBody {
  const issue = error.issues[0];
  const param = issue ? formatPath(issue.path) : '';
  const message = issue ? `${param || 'body'}: ${issue.message}` : 'invalid request body';
  return errorBody(message, 'invalid_request_error', 'invalid_value', param || null);
}

/**
 * The one reader of JSON request bodies: reads the body (already held to the app's size limit, so
 * an oversized one never gets here), parses it, validates it with the route's `schema`, and hands
 * the typed value to the handler as `c.req.valid('json')`. The `Content-Type` is not consulted:
 * `curl -d` sends a form type with a JSON body, and the OpenAI clients always send JSON.
 */
export function jsonBody<S extends z.ZodType<object>>(
  schema: S,
): MiddlewareHandler<HttpEnv, string, JsonBodyInput<S>> {
  return async (c, next) => {
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch (error) {
      return errorResponse(400, notJsonBody(error));
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return errorResponse(400, invalidBody(parsed.error));
    c.req.addValidatedData('json', parsed.data);
    await next();
  };
}
