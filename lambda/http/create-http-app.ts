import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Catalog } from '../core/catalog/catalog.js';
import { redactSecrets } from '../core/failures/redact-secrets.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Logger } from '../core/logger.js';
import { chatCompletions } from './chat-completions.js';
import { addInfoRoutes } from './info-routes.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** Largest request body accepted, in bytes. Default 1 MiB; beyond it the answer is 413. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  gateway: Gateway;
  catalog: Catalog;
  log: Logger;
  maxBodyBytes?: number | undefined;
}

/**
 * The one HTTP app of Switchyard: `switchyard serve` runs it on node:http, the API Lambda runs it
 * behind API Gateway. Every error is an OpenAI envelope; nothing answers with a stack trace.
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const { gateway, catalog, log } = options;
  const maxSize = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono();

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize,
      onError: () =>
        errorResponse(
          413,
          errorBody(
            `request body is larger than ${maxSize} bytes`,
            'invalid_request_error',
            'request_too_large',
          ),
        ),
    }),
  );
  app.post('/v1/chat/completions', (c) => chatCompletions(c, gateway));
  addInfoRoutes(app, gateway, catalog);

  app.notFound((c) =>
    errorResponse(
      404,
      errorBody(
        `no route for ${c.req.method} ${new URL(c.req.url).pathname}`,
        'invalid_request_error',
        'not_found',
      ),
    ),
  );
  app.onError((error) => {
    log.error('unhandled error in the HTTP app', { error: error.name, detail: redactSecrets(error.message) });
    return errorResponse(500, errorBody('internal error', 'api_error', 'internal_error'));
  });
  return app;
}
