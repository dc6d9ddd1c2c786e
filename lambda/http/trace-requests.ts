import type { MiddlewareHandler } from 'hono';
import type { RequestTracing } from '../core/tracing/request-spans.js';
import type { GenAiOperation } from '../core/tracing/span-attributes.js';
import type { HttpEnv } from './http-env.js';

/**
 * Opens the request's span, a child of the caller's `traceparent`, before the request is routed;
 * `operation` names it and its attempts (`chat` for chat completions and messages, `embeddings`
 * for embeddings). It ends when the answer is ready, or for a routed request with its request line (a stream's
 * after its last chunk). Runs after the request id is picked, so the span carries it.
 */
export function traceRequests(
  tracing: RequestTracing,
  operation: GenAiOperation,
): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const span = tracing.open(c.get('requestId'), c.req.header('traceparent'), operation);
    try {
      await next();
    } finally {
      // A routed answer carries its attempt count; with one or more, its request line is still to come or came.
      span.answered(c.res.status, Number(c.res.headers.get('x-switchyard-attempts') ?? '0') > 0);
    }
  };
}
