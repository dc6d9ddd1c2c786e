import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';
import { createCatalog } from '../lambda/core/catalog/catalog.js';
import { jobLeaseMs } from '../lambda/core/jobs/job-lease.js';

/** The worker's timeout when no pipeline needs more, in s: what it always was. */
export const MIN_WORKER_TIMEOUT_SECONDS = 120;
/**
 * Seconds the worker keeps beyond a job's lease (the longest deadline, a webhook delivery and 5 s):
 * a cold container's start (config, SSM, provider keys) and the job-store writes after the answer.
 */
export const WORKER_MARGIN_SECONDS = 30;
/** Lambda's longest timeout, in s. */
const LAMBDA_MAX_SECONDS = 900;

/**
 * The job worker's timeout in s: the longest pipeline deadline's job lease plus
 * {@link WORKER_MARGIN_SECONDS}, and never less than {@link MIN_WORKER_TIMEOUT_SECONDS}. The job
 * queue's visibility timeout is six times it. Jobs of one batch run side by side, so one job's
 * lease bounds the batch. Throws, naming the pipeline, when no Lambda could run its job.
 */
export function workerTimeoutSeconds(config: SwitchyardConfig): number {
  const catalog = createCatalog(config);
  const needed = Math.ceil(jobLeaseMs(catalog) / 1000) + WORKER_MARGIN_SECONDS;
  if (needed > LAMBDA_MAX_SECONDS) {
    const deadline = (p: string) => catalog.policy(p).route.deadlineMs;
    const longest = ['', ...catalog.pipelines].reduce((a, b) => (deadline(b) > deadline(a) ? b : a));
    const name = longest === '' ? 'router (ad-hoc chains)' : `pipeline ${longest}`;
    throw new Error(
      `${name}: deadlineMs ${deadline(longest)} leaves a job worker no room within Lambda's ${LAMBDA_MAX_SECONDS} s timeout (the deadline, a webhook delivery and ${WORKER_MARGIN_SECONDS} s to start and record the job); use a shorter deadline`,
    );
  }
  return Math.max(MIN_WORKER_TIMEOUT_SECONDS, needed);
}
