import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { redactSecrets } from '../core/failures/redact-secrets.js';
import { createAwsContainer } from '../wiring/aws-container.js';
import { createAwsGateway } from '../wiring/create-aws-gateway.js';
import {
  callerGoneSignal,
  type FetchApp,
  handleApiEvent,
  type StreamedResponse,
  startFailure,
  writeStreamedResponse,
} from './api-event.js';

// Clients once per container; the app on the first request (it reads provider keys), and again
// after a failed start rather than caching the failure.
const container = createAwsContainer();
let app: Promise<FetchApp> | undefined;
const appForContainer = (): Promise<FetchApp> => {
  app ??= createAwsGateway(container)
    .then((assembled) => assembled.app)
    .catch((error: unknown) => {
      app = undefined;
      throw error;
    });
  return app;
};

/** The Lambda context plus the signal that the caller went away. */
interface ApiContext extends Context {
  callerGone: AbortSignal;
}

const answer = middy<APIGatewayProxyEvent, StreamedResponse, Error, ApiContext>()
  .use(injectLambdaContext(container.logger))
  .handler(async (event, context) => {
    let gateway: FetchApp;
    try {
      gateway = await appForContainer();
    } catch (error) {
      // The caller still gets the OpenAI envelope; the cause goes to the log, not to the caller.
      container.logger.error('gateway failed to start', {
        error: error instanceof Error ? error.name : 'unknown',
        detail: error instanceof Error ? redactSecrets(error.message) : undefined,
      });
      return startFailure();
    }
    return handleApiEvent(event, gateway, context.callerGone);
  });

/**
 * The API Lambda: API Gateway (REST, streamed) → the same HTTP app as `switchyard serve`. The
 * runtime's response stream is watched from the start, so a caller who disconnects aborts the
 * request (the upstream call, and any attempt not yet started) even before the first byte. The
 * metrics are written once the body is: a stream's request line (and its metrics) comes with its
 * last event, after the middy chain has returned the response.
 */
export const handler = awslambda.streamifyResponse<APIGatewayProxyEvent>(
  async (event, responseStream, context) => {
    container.metrics.coldStart(context.functionName);
    const callerGone = callerGoneSignal(responseStream);
    try {
      const response = await answer(event, Object.assign(context, { callerGone }));
      await writeStreamedResponse(response, responseStream, callerGone);
    } finally {
      container.metrics.flush();
    }
  },
);
