import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../lambda/core/catalog/catalog.js';
import { jobLeaseMs } from '../../lambda/core/jobs/job-lease.js';
import {
  MIN_WORKER_TIMEOUT_SECONDS,
  WORKER_MARGIN_SECONDS,
  workerTimeoutSeconds,
} from '../../lib/worker-timeout.js';
import { STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

/** STACK_CONFIG with a pipeline `slow` of this deadline, behind an integration timeout it fits in. */
const withDeadline = (deadlineMs: number) =>
  withAws(
    { streaming: { integrationTimeoutSeconds: Math.min(900, Math.ceil(deadlineMs / 1000) + 1) } },
    { ...STACK_CONFIG, pipelines: { ...STACK_CONFIG.pipelines, slow: { chain: 'gpt-mini', deadlineMs } } },
  );

const worker = (template: Template) => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Handler: 'index.handler', Environment: { Variables: { SWITCHYARD_STORE: 'dynamodb' } } },
  });
  const mapped = Object.keys(template.findResources('AWS::Lambda::EventSourceMapping')).map(
    (id) => template.toJSON().Resources[id].Properties.FunctionName.Ref as string,
  );
  const [id] = mapped;
  expect(mapped).toHaveLength(1);
  return fns[id as string]?.Properties as { Timeout: number };
};
const visibility = (template: Template) =>
  Object.values(
    template.findResources('AWS::SQS::Queue', { Properties: { QueueName: 'Switchyard-jobs' } }),
  )[0]?.Properties.VisibilityTimeout as number;

describe('the worker timeout follows the longest pipeline deadline', () => {
  it('stays 120 s, with a 720 s visibility timeout, when every deadline fits', () => {
    const { template } = synthStack();
    expect(worker(template).Timeout).toBe(MIN_WORKER_TIMEOUT_SECONDS);
    expect(visibility(template)).toBe(6 * MIN_WORKER_TIMEOUT_SECONDS);
  }, 60_000);

  it('runs a 200 s pipeline in a worker of at least its lease (deadline + delivery) plus the margin, six times that visible', () => {
    const config = withDeadline(200_000);
    const { template } = synthStack(config);
    const timeout = worker(template).Timeout;
    const leaseSeconds = jobLeaseMs(createCatalog(parseConfig(config))) / 1000;
    expect(leaseSeconds).toBeGreaterThanOrEqual(200 + 10);
    expect(timeout).toBe(Math.ceil(leaseSeconds) + WORKER_MARGIN_SECONDS);
    expect(timeout).toBeGreaterThan(200 + WORKER_MARGIN_SECONDS);
    expect(visibility(template)).toBe(6 * timeout);
  }, 60_000);

  it('keeps 120 s exactly up to the deadline whose lease plus margin is 120 s, and grows one second past it', () => {
    // lease = deadline + 15 s: a 75 s deadline needs 75 + 15 + 30 = 120 s.
    expect(workerTimeoutSeconds(parseConfig(withDeadline(75_000)))).toBe(120);
    expect(workerTimeoutSeconds(parseConfig(withDeadline(75_001)))).toBe(121);
  });

  it('refuses a deadline that leaves a worker no room within 900 s, naming the pipeline', () => {
    expect(workerTimeoutSeconds(parseConfig(withDeadline(855_000)))).toBe(900);
    expect(() => workerTimeoutSeconds(parseConfig(withDeadline(855_001)))).toThrow(
      /^pipeline slow: deadlineMs 855001 leaves a job worker no room within Lambda's 900 s timeout/,
    );
  });
});
