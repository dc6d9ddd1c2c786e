import * as z from 'zod';
import { powertoolsLogger } from '../../aws/powertools-evidence.js';
import { ConfigError } from '../../core/errors.js';
import { type FanOutResult, fanOutSchedule } from '../../core/jobs/fan-out-schedule.js';
import { type AwsContainer, awsJobs } from '../../wiring/aws-container.js';
import { systemClock, systemRandom } from '../../wiring/system-time.js';

/** What the EventBridge rule sends: `RuleTargetInput.fromObject({schedule, time: EventField.time})`. */
export const scheduleEventSchema = z.object({
  schedule: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
});

export interface Scheduler {
  /** Fans one firing out; throws on an event or schedule it cannot serve (EventBridge then retries). */
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
      const parsed = scheduleEventSchema.safeParse(event);
      if (!parsed.success)
        throw new ConfigError('event', `not a schedule event: ${parsed.error.issues[0]?.message}`);
      const { schedule: name, time } = parsed.data;
      const schedule = container.config.schedules[name];
      if (!schedule) throw new ConfigError(`schedules.${name}`, 'no such schedule in the bundled config');
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
        enqueued: result.enqueued.length,
        duplicates: result.duplicates.length,
      });
      return { ...result, schedule: name, time };
    },
  };
}
