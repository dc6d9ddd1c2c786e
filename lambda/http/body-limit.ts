import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody, errorResponse } from './openai-errors.js';

/**
 * 413 for a body over `maxSize` bytes. A declared `content-length` is checked from the header
 * alone (Node's parser never reads past it), which spares building a web stream per request on
 * the hot path; a chunked body without one is counted as it arrives.
 */
export function limitBodySize(maxSize: number): MiddlewareHandler {
  const tooLarge = () =>
    errorResponse(
      413,
      errorBody(`request body is larger than ${maxSize} bytes`, 'invalid_request_error', 'request_too_large'),
    );
  const counting = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined) return counting(c, next);
    if (Number(declared) > maxSize) return tooLarge();
    await next();
  };
}
