import type { MiddlewareHandler } from 'hono';
import type * as z from 'zod';
import { formatPath } from '../core/catalog/parse-config.js';
import { findJsonTooDeep, type JsonPath, shownPath } from '../core/chat/json-depth.js';
import type { RequestBounds } from '../core/chat/request-bounds.js';
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
 * 400 `limit_exceeded` for a body nested deeper than `limits.maxJsonDepth`, naming the path where
 * it went past the limit by its first segments (`tools[0].function.parameters.a.a.a.a…`), each
 * key cut to `limits.maxEchoChars`: the keys on it are the caller's.
 */
function tooDeepBody(path: JsonPath, bounds: RequestBounds): OpenAIErrorBody {
  const param = shownPath(path, bounds.maxEchoChars);
  const message = `${param || 'body'}: nested deeper than ${bounds.maxJsonDepth} levels of objects and arrays (limits.maxJsonDepth)`;
  return errorBody(message, 'invalid_request_error', 'limit_exceeded', param || null);
}

/**
 * The one reader of JSON request bodies, on every door: reads the body (already held to the app's
 * size limit, so an oversized one never gets here), refuses one nested deeper than
 * `bounds.maxJsonDepth` before parsing it (so no recursive step of the gateway or an SDK ever
 * meets one), parses it, validates it with the route's `schema`, and hands the typed value to the
 * handler as `c.req.valid('json')`. The `Content-Type` is not consulted: `curl -d` sends a form
 * type with a JSON body, and the OpenAI clients always send JSON.
 */
export function jsonBody<S extends z.ZodType<object>>(
  schema: S,
  bounds: RequestBounds,
): MiddlewareHandler<HttpEnv, string, JsonBodyInput<S>> {
  return async (c, next) => {
    let raw: unknown;
    try {
      const text = await c.req.text();
      const tooDeep = findJsonTooDeep(text, bounds.maxJsonDepth);
      if (tooDeep) return errorResponse(400, tooDeepBody(tooDeep, bounds));
      raw = JSON.parse(text);
    } catch (error) {
      return errorResponse(400, notJsonBody(error));
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return errorResponse(400, invalidBody(parsed.error));
    c.req.addValidatedData('json', parsed.data);
    await next();
  };
}
