/**
 * Schedules on EventBridge Scheduler (docs/jobs.md#schedules-on-aws): a schedule group, one
 * schedule per configured schedule with its time zone and flexible window, a retry policy, the
 * retained schedule dead-letter queue, and a role that may invoke only the scheduler Lambda.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack } from './stack-fixture.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

let template: Template;
beforeAll(() => {
  ({ template } = synthStack({
    ...STACK_CONFIG,
    schedules: {
      'nightly-digest': { ...STACK_CONFIG.schedules['nightly-digest'], timezone: 'America/New_York' },
      hourly: { ...STACK_CONFIG.schedules.hourly, flexibleWindowMinutes: 15 },
    },
  }));
  // Only the synth, which takes 10–30 s on a loaded machine.
}, 180_000);

/** The one resource of `type` whose logical id starts with `prefix`, with its id. */
function only(type: string, prefix: string): [string, Resource] {
  const found = Object.entries(template.findResources(type) as Record<string, Resource>).filter(([id]) =>
    id.startsWith(prefix),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** The Scheduler schedule named `name`. */
function schedule(name: string): Record<string, unknown> {
  const all = Object.values(template.findResources('AWS::Scheduler::Schedule') as Record<string, Resource>);
  const found = all.filter((r) => r.Properties.Name === name);
  expect(found).toHaveLength(1);
  return found[0]?.Properties ?? {};
}

const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });

describe('Switchyard stack: schedules on EventBridge Scheduler', () => {
  it('creates one schedule per configured schedule, named after it, in the stack’s own group, and no EventBridge rule', () => {
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    template.resourceCountIs('AWS::Scheduler::Schedule', 2);
    template.resourceCountIs('AWS::Events::Rule', 0);
    const [, group] = only('AWS::Scheduler::ScheduleGroup', 'ScheduledJobsSchedulesGroup');
    expect(group.DeletionPolicy).toBe('Delete');
    for (const name of ['nightly-digest', 'hourly']) {
      expect(schedule(name)).toMatchObject({ GroupName: group.Properties.Name, State: 'ENABLED' });
    }
    expect(schedule('nightly-digest').ScheduleExpression).toBe('cron(0 3 * * ? *)');
    expect(schedule('hourly').ScheduleExpression).toBe('rate(1 hour)');
  });

  it('reads each schedule in its configured time zone, UTC when the config names none', () => {
    expect(schedule('nightly-digest').ScheduleExpressionTimezone).toBe('America/New_York');
    expect(schedule('hourly').ScheduleExpressionTimezone).toBe('UTC');
  });

  it('gives a schedule with flexibleWindowMinutes a flexible window of that many minutes, and the others none', () => {
    expect(schedule('hourly').FlexibleTimeWindow).toEqual({ Mode: 'FLEXIBLE', MaximumWindowInMinutes: 15 });
    expect(schedule('nightly-digest').FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
  });

  it('sends the scheduler Lambda the schedule’s name and the firing’s scheduled time as Scheduler delivers it', () => {
    const [lambda] = only('AWS::Lambda::Function', 'ScheduledJobsSchedulerHandler');
    for (const name of ['nightly-digest', 'hourly']) {
      const target = schedule(name).Target as { Arn: unknown; Input: string };
      expect(target.Arn).toEqual(getAtt(lambda));
      expect(JSON.parse(target.Input)).toEqual({
        schedule: name,
        scheduledTime: '<aws.scheduler.scheduled-time>',
        executionId: '<aws.scheduler.execution-id>',
        attempt: '<aws.scheduler.attempt-number>',
      });
    }
  });

  it('retries a delivery 4 times within an hour, then parks the firing in the schedule dead-letter queue', () => {
    const [dlq] = only('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue');
    for (const name of ['nightly-digest', 'hourly']) {
      expect(schedule(name).Target).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 3_600 },
        DeadLetterConfig: { Arn: getAtt(dlq) },
      });
    }
  });

  it('keeps the schedule dead-letter queue 14 days, encrypted, and when the stack is deleted', () => {
    const [, dlq] = only('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue');
    expect(dlq.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true });
    expect(dlq.DeletionPolicy).toBe('Retain');
  });

  it('lets only EventBridge Scheduler assume the schedules’ role, for this stack’s group in this account', () => {
    const [roleId, role] = only('AWS::IAM::Role', 'ScheduledJobsSchedulesInvokeRole');
    const [groupId] = only('AWS::Scheduler::ScheduleGroup', 'ScheduledJobsSchedulesGroup');
    expect((role.Properties.AssumeRolePolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': '123456789012', 'aws:SourceArn': getAtt(groupId) },
        },
      },
    ]);
    for (const name of ['nightly-digest', 'hourly'])
      expect((schedule(name).Target as { RoleArn: unknown }).RoleArn).toEqual(getAtt(roleId));
  });

  it('lets the schedules’ role invoke only the scheduler Lambda and send only to the schedule dead-letter queue', () => {
    const [lambda] = only('AWS::Lambda::Function', 'ScheduledJobsSchedulerHandler');
    const [dlq] = only('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue');
    const statements = roleStatements(template, 'ScheduledJobsSchedulesInvokeRole');
    expect(
      statements.map((s) => ({ effect: s.Effect, actions: actionsOf(s), resource: arnText(s.Resource) })),
    ).toEqual([
      { effect: 'Allow', actions: ['lambda:InvokeFunction'], resource: `<${lambda}.Arn>` },
      { effect: 'Allow', actions: ['sqs:SendMessage'], resource: `<${dlq}.Arn>` },
    ]);
    for (const s of statements) expect(s.Condition).toBeUndefined();
  });

  it('names the schedule group in an output, for aws scheduler list-schedules', () => {
    const [, group] = only('AWS::Scheduler::ScheduleGroup', 'ScheduledJobsSchedulesGroup');
    template.hasOutput('ScheduleGroupName', { Value: group.Properties.Name });
  });
});
