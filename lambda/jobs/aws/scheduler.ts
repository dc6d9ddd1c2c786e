import { powertoolsLogger } from '../../aws/powertools-evidence.js';
import { ConfigError } from '../../core/errors.js';
import { type FanOutResult, fanOutSchedule } from '../../core/jobs/fan-out-schedule.js';
import { type AwsContainer, awsJobs } from '../../wiring/aws-container.js';
import { systemClock, systemRandom } from '../../wiring/system-time.js';
import { parseScheduleEvent } from './schedule-event.js';

export interface Scheduler {
  /**
   * Fans one firing out; throws on an event or schedule it cannot serve (Lambda then retries the
   * asynchronous invocation, and parks it in the schedule dead-letter queue after that).
   */
  fire(event: unknown): Promise<FanOutResult & { schedule: string; time: string }>;
}

/** The scheduler's logic over the AWS job store and queue. */
export function createScheduler(container: AwsContainer): Scheduler {
  const jobs = awsJobs(container);
  if (!jobs)
    throw new ConfigError('', 'the scheduler needs SWITCHYARD_JOBS_TABLE and SWITCHYARD_JOB_QUEUE_URL');
  const log = powertoolsLogger(container.logger);
  return {
    async fire(event) {
      const parsed = parseScheduleEvent(event);
      if (!parsed.ok) throw new ConfigError('event', `not a schedule event: ${parsed.problem}`);
      const { schedule: name, time, source, executionId, attempt } = parsed.firing;
      const schedule = container.config.schedules[name];
      if (!schedule) throw new ConfigError(`schedules.${name}`, 'no such schedule in the bundled config');
      // Both event shapes key on the scheduled time, so the one firing an old rule and a new
      // schedule both deliver during the switching deploy makes one set of jobs.
      const result = await fanOutSchedule(schedule, name, time, {
        store: jobs.store,
        queue: jobs.queue,
        clock: systemClock,
        random: systemRandom,
        retentionDays: container.config.jobs.retentionDays,
      });
      log.info('schedule fanned out', {
        schedule: name,
        time,
        source,
        ...(executionId === undefined ? {} : { executionId }),
        ...(attempt === undefined ? {} : { attempt }),
        enqueued: result.enqueued.length,
        duplicates: result.duplicates.length,
      });
      return { ...result, schedule: name, time };
    },
  };
}
