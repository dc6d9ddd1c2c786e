import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { flushEmfMetrics } from '../aws/emf-metrics.js';
import { createScheduler } from '../jobs/aws/scheduler.js';
import { createAwsContainer } from '../wiring/aws-container.js';

const container = createAwsContainer();
const scheduler = createScheduler(container);

/**
 * The scheduler: an EventBridge Scheduler schedule fires it with `{schedule, scheduledTime}` (an
 * EventBridge rule's older `{schedule, time}` is still served); it fans the schedule's jobs out
 * into the job queue, one conditional put per job id, so a duplicate delivery sends nothing.
 */
export const handler = middy<unknown>()
  .use(injectLambdaContext(container.logger))
  .use(flushEmfMetrics(container.metrics))
  .handler((event) => scheduler.fire(event));
