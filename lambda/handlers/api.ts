import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Hono } from 'hono';
import { createAwsRuntime } from '../aws/aws-runtime.js';
import { createAwsGateway } from '../aws/create-aws-app.js';
import { redactSecrets } from '../core/failures/redact-secrets.js';
import { handleApiEvent, startFailure } from './api-event.js';

// Clients once per container; the app on the first request (it reads provider keys), and again
// after a failed start rather than caching the failure.
const runtime = createAwsRuntime();
let app: Promise<Hono> | undefined;
const appForContainer = (): Promise<Hono> => {
  app ??= createAwsGateway(runtime)
    .then((assembled) => assembled.app)
    .catch((error: unknown) => {
      app = undefined;
      throw error;
    });
  return app;
};

/** The API Lambda: API Gateway (REST, streamed) → the same HTTP app as `switchyard serve`. */
export const handler = middy<APIGatewayProxyEvent>({ streamifyResponse: true })
  .use(injectLambdaContext(runtime.logger))
  .use(logMetrics(runtime.metrics, { captureColdStartMetric: true }))
  .handler(async (event) => {
    let gateway: Hono;
    try {
      gateway = await appForContainer();
    } catch (error) {
      // The caller still gets the OpenAI envelope; the cause goes to the log, not to the caller.
      runtime.logger.error('gateway failed to start', {
        error: error instanceof Error ? error.name : 'unknown',
        detail: error instanceof Error ? redactSecrets(error.message) : undefined,
      });
      return startFailure();
    }
    return handleApiEvent(event, gateway);
  });
