import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { createAwsRuntime } from '../aws/aws-runtime.js';
import { createScheduler } from '../aws/scheduler.js';

const runtime = createAwsRuntime();
const scheduler = createScheduler(runtime);

/**
 * The scheduler: an EventBridge rule fires it with `{schedule, time}`; it fans the schedule's jobs
 * out into the job queue, one conditional put per job id, so a duplicate delivery sends nothing.
 */
export const handler = middy<unknown>()
  .use(injectLambdaContext(runtime.logger))
  .use(logMetrics(runtime.metrics))
  .handler((event) => scheduler.fire(event));
