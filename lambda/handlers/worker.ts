import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { flushEmfMetrics } from '../aws/emf-metrics.js';
import { createJobWorker, type JobWorker } from '../jobs/aws/job-worker.js';
import { createAwsContainer } from '../wiring/aws-container.js';
import { createAwsGateway } from '../wiring/create-aws-gateway.js';

// Clients once per container; the gateway and job store on the first batch.
const container = createAwsContainer();
const processor = new BatchProcessor(EventType.SQS);
let worker: Promise<JobWorker> | undefined;
const workerForContainer = (): Promise<JobWorker> => {
  worker ??= createAwsGateway(container)
    .then((assembled) => createJobWorker(container, assembled.gateway, assembled.jobAdmission))
    .catch((error: unknown) => {
      worker = undefined;
      throw error;
    });
  return worker;
};

/**
 * The job worker: each SQS record is one job id. A job that must come back (every route failed, or
 * another worker holds it) is reported as a batch item failure, so SQS redelivers only that one
 * and, after `maxReceiveCount`, moves it to the dead-letter queue.
 */
export const handler = middy<SQSEvent>()
  .use(injectLambdaContext(container.logger))
  .use(flushEmfMetrics(container.metrics))
  .handler(async (event, context) => {
    const jobs = await workerForContainer();
    return processPartialResponse(event, (record: SQSRecord) => jobs.process(record.body), processor, {
      context,
    });
  });
