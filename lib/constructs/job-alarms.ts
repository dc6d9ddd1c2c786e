import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { type AlarmFactory, ALARM_PERIOD as period } from './alarm-factory.js';
import type { AlarmThresholds } from './alarm-thresholds.js';

export interface JobAlarmSources {
  queue: IQueue;
  deadLetters: IQueue;
  worker: IFunction;
  /** Present with schedules. */
  scheduler?: IFunction | undefined;
  /** Present with schedules. */
  scheduleDeadLetters?: IQueue | undefined;
}

/** The alarms on jobs: stuck or dead-lettered work, failing workers, failing schedules. */
export function addJobAlarms(alarms: AlarmFactory, sources: JobAlarmSources, t: AlarmThresholds): void {
  const depth = (queue: IQueue) =>
    queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
  alarms.add({
    name: 'DeadLetterDepth',
    description: 'Jobs are waiting in the dead-letter queue: fix the cause, then `switchyard replay`.',
    metric: depth(sources.deadLetters),
    threshold: t.deadLetters,
  });
  alarms.add({
    name: 'OldestQueuedJob',
    description: `A job has waited ≥ ${t.oldestJobAgeSeconds} s in the job queue: the worker is failing, throttled or at aws.capacity.workerMaxConcurrency. Read the worker's log; raise the concurrency if the backlog is only load.`,
    metric: sources.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
    threshold: t.oldestJobAgeSeconds,
  });
  alarms.add({
    name: 'WorkerErrors',
    description:
      "The worker failed whole invocations (crash or timeout: the batch goes back to the queue and is retried): read the worker's log.",
    metric: sources.worker.metricErrors({ period, statistic: 'Sum' }),
    threshold: t.workerErrors,
  });
  if (sources.scheduler) {
    alarms.add({
      name: 'SchedulerErrors',
      description:
        "The scheduler failed a schedule's fan-out (Lambda retries an asynchronous invocation twice, then the schedule dead-letter queue holds it): read the scheduler's log.",
      metric: sources.scheduler.metricErrors({ period, statistic: 'Sum' }),
      threshold: t.schedulerErrors,
    });
  }
  if (sources.scheduleDeadLetters) {
    alarms.add({
      name: 'ScheduleDeadLetterDepth',
      description:
        'A schedule did not start its fan-out (EventBridge Scheduler could not invoke the scheduler within its retry policy, or the scheduler failed every asynchronous retry): read the message, fix the cause, then run the schedule again.',
      metric: depth(sources.scheduleDeadLetters),
      threshold: t.deadLetters,
    });
  }
}
