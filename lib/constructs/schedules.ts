import { Duration, RemovalPolicy, Stack, TimeZone } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  ContextAttribute,
  type ISchedule,
  type IScheduleTarget,
  Schedule,
  ScheduleExpression,
  ScheduleGroup,
  type ScheduleTargetConfig,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ScheduleConfig } from '../../lambda/core/catalog/jobs-config-schema.js';
import { constructIdsFor } from './construct-ids.js';

/** Retries of a firing Scheduler could not hand to Lambda, before the dead-letter queue. */
export const SCHEDULE_RETRY_ATTEMPTS = 4;
/** How long Scheduler keeps trying to hand a firing to Lambda before the dead-letter queue, in s. */
export const SCHEDULE_MAX_EVENT_AGE_SECONDS = 3_600;

export interface SchedulesProps {
  /** Schedule name → schedule: one EventBridge Scheduler schedule each, named after it. */
  schedules: Record<string, ScheduleConfig>;
  /** The scheduler Lambda (or its alias): the one thing the schedules' role may invoke. */
  target: IFunction;
  /** Where a firing goes that Scheduler could not deliver within its retry policy. */
  deadLetters: IQueue;
}

/**
 * The schedules of the config on EventBridge Scheduler: a schedule group of this stack, one
 * schedule per configured schedule (its time zone, its flexible window or none), and one role
 * Scheduler assumes — trusted only for this group in this account — that may invoke exactly the
 * scheduler Lambda and send to the dead-letter queue. Each schedule retries a delivery
 * {@link SCHEDULE_RETRY_ATTEMPTS} times within {@link SCHEDULE_MAX_EVENT_AGE_SECONDS} s (Scheduler's
 * own defaults, 185 over a day, would hide an outage for a day), then parks the firing, as
 * `{schedule, scheduledTime}`, in the dead-letter queue.
 */
export class Schedules extends Construct {
  readonly group: ScheduleGroup;
  /** The role Scheduler assumes to invoke the scheduler Lambda. */
  readonly role: Role;
  readonly schedules: Schedule[];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    // The schedules come from the config and go with the stack: nothing to keep on delete.
    this.group = new ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    this.role = new Role(this, 'InvokeRole', {
      description: 'EventBridge Scheduler invokes the Switchyard scheduler Lambda',
      // Scheduler names the group as the source: no other group, nor another account, can use the role.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': Stack.of(this).account,
            'aws:SourceArn': this.group.scheduleGroupArn,
          },
        },
      }),
    });
    // Exactly the function's ARN, not CDK's grantInvoke (which adds `<arn>:*`, every version).
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'InvokeScheduler',
        actions: ['lambda:InvokeFunction'],
        resources: [props.target.functionArn],
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'ParkUndeliveredFirings',
        actions: ['sqs:SendMessage'],
        resources: [props.deadLetters.queueArn],
      }),
    );

    const ids = constructIdsFor(Object.keys(props.schedules), 'schedules');
    this.schedules = Object.entries(props.schedules).map(
      ([name, schedule]) =>
        new Schedule(this, ids.get(name) ?? name, {
          // Config names (letters, digits, - _, at most 64) are valid schedule names, unique in the group.
          scheduleName: name,
          scheduleGroup: this.group,
          description: `Switchyard schedule '${name}' (pipeline ${schedule.pipeline}, ${schedule.jobs.length} job(s))`,
          schedule: ScheduleExpression.expression(schedule.expression, TimeZone.of(schedule.timezone)),
          timeWindow:
            schedule.flexibleWindowMinutes === undefined
              ? TimeWindow.off()
              : TimeWindow.flexible(Duration.minutes(schedule.flexibleWindowMinutes)),
          target: new SchedulerLambdaTarget(props.target, this.role, props.deadLetters, name),
        }),
    );
  }
}

/**
 * The scheduler Lambda as a schedule's target, with the role above. Unlike `LambdaInvoke` it
 * grants nothing itself: the role's policy is written once, to exact ARNs.
 */
class SchedulerLambdaTarget implements IScheduleTarget {
  constructor(
    private readonly fn: IFunction,
    private readonly role: Role,
    private readonly deadLetters: IQueue,
    private readonly scheduleName: string,
  ) {}

  bind(_schedule: ISchedule): ScheduleTargetConfig {
    return {
      arn: this.fn.functionArn,
      role: this.role,
      // The firing's scheduled time keys the fan-out's job ids (lambda/jobs/aws/schedule-event.ts).
      input: ScheduleTargetInput.fromObject({
        schedule: this.scheduleName,
        scheduledTime: ContextAttribute.scheduledTime,
        executionId: ContextAttribute.executionId,
        attempt: ContextAttribute.attemptNumber,
      }),
      retryPolicy: {
        maximumRetryAttempts: SCHEDULE_RETRY_ATTEMPTS,
        maximumEventAgeInSeconds: SCHEDULE_MAX_EVENT_AGE_SECONDS,
      },
      deadLetterConfig: { arn: this.deadLetters.queueArn },
    };
  }
}
