import * as z from 'zod';

/**
 * What an EventBridge Scheduler schedule sends (lib/constructs/schedules.ts): the schedule's
 * name and the firing's `<aws.scheduler.scheduled-time>`, the time the schedule names for this
 * firing, not the moment its flexible window chose, and the same on every retry of the firing.
 * `executionId` and `attempt` (Scheduler's `<aws.scheduler.execution-id>` and
 * `<aws.scheduler.attempt-number>`) only go to the log, so a duplicate can be traced to its retry.
 */
export const schedulerEventSchema = z.object({
  schedule: z.string().min(1),
  scheduledTime: z.iso.datetime({ offset: true }),
  executionId: z.string().max(128).optional(),
  attempt: z.union([z.string().regex(/^\d{1,6}$/), z.number().int().nonnegative()]).optional(),
});

/**
 * What an EventBridge rule sent before schedules moved to Scheduler:
 * `RuleTargetInput.fromObject({schedule, time: EventField.time})`. Still accepted, so an event
 * retried (or parked in the dead-letter queue) across the deploy that switches is served.
 */
export const ruleEventSchema = z.object({
  schedule: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
});

/** One firing of a schedule, whichever service delivered it. */
export interface ScheduleFiring {
  schedule: string;
  /** The scheduled time as delivered; the fan-out keys its job ids on it (to the second, in UTC). */
  time: string;
  source: 'scheduler' | 'rule';
  executionId?: string | undefined;
  attempt?: string | undefined;
}

/** The firing an event names, or the first problem with it (for the error the handler throws). */
export function parseScheduleEvent(
  event: unknown,
): { ok: true; firing: ScheduleFiring } | { ok: false; problem: string } {
  const scheduler = schedulerEventSchema.safeParse(event);
  if (scheduler.success) {
    const { schedule, scheduledTime, executionId, attempt } = scheduler.data;
    return {
      ok: true,
      firing: {
        schedule,
        time: scheduledTime,
        source: 'scheduler',
        executionId,
        attempt: attempt === undefined ? undefined : String(attempt),
      },
    };
  }
  const rule = ruleEventSchema.safeParse(event);
  if (rule.success) return { ok: true, firing: { ...rule.data, source: 'rule' } };
  // A body that tried to be a Scheduler event is told about that shape; anything else about the old one too.
  const issue = scheduler.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return {
    ok: false,
    problem: `${where}${issue?.message ?? 'invalid'} (expected {schedule, scheduledTime} from EventBridge Scheduler, or {schedule, time} from an EventBridge rule)`,
  };
}
