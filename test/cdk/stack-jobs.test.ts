import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack } from './stack-fixture.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthStack());
});

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
function logicalId(type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

describe('Switchyard stack: schedules and jobs', () => {
  it('sends a scheduler invocation that failed every asynchronous retry to the same dead-letter queue', () => {
    const dlq = logicalId('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      MemorySize: 512,
      DeadLetterConfig: { TargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
    });
  });

  it('alarms on the schedule dead-letter queue on its own', () => {
    const dlq = logicalId('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [Match.anyValue()],
    });
  });

  it('has no schedule dead-letter queue (nor its alarm), no schedule group, schedule or role without schedules', () => {
    const { template: plain } = synthStack({ ...STACK_CONFIG, schedules: {} });
    plain.resourceCountIs('AWS::SQS::Queue', 2);
    plain.resourceCountIs('AWS::Events::Rule', 0);
    plain.resourceCountIs('AWS::Scheduler::ScheduleGroup', 0);
    plain.resourceCountIs('AWS::Scheduler::Schedule', 0);
    expect(Object.keys(plain.findResources('AWS::IAM::Role')).join()).not.toContain('Schedules');
    expect(plain.toJSON().Outputs.ScheduleGroupName).toBeUndefined();
    expect(Object.keys(plain.findResources('AWS::CloudWatch::Alarm')).join()).not.toContain('Schedule');
  });

  it('queues jobs for retentionDays, with a dead-letter queue after maxReceiveCount that keeps 14 days whatever retentionDays says', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'Switchyard-jobs',
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 4 },
      MessageRetentionPeriod: 7 * 86_400,
      VisibilityTimeout: 720,
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'Switchyard-jobs-dlq',
      RedriveAllowPolicy: { redrivePermission: 'byQueue', sourceQueueArns: [Match.anyValue()] },
      MessageRetentionPeriod: 14 * 86_400,
    });
  });

  it('runs the worker on the queue with partial batch failures and at most 10 instances by default', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('alarms when jobs wait in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^JobsDeadLetterQueue'), 'QueueName'] },
        },
      ],
      Threshold: 1,
    });
  });

  it('gives the scheduler only what it uses: the jobs table, the job queue and its dead-letter queue', () => {
    const statements = roleStatements(template, 'ScheduledJobsSchedulerRole');
    expect(statements.flatMap(actionsOf).sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sqs:SendMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    const sends = statements
      .filter((s) => actionsOf(s).includes('sqs:SendMessage'))
      .map((s) => arnText(s.Resource));
    expect(sends.sort()).toEqual(
      [
        `<${logicalId('AWS::SQS::Queue', 'JobsJobQueue')}.Arn>`,
        `<${logicalId('AWS::SQS::Queue', 'ScheduledJobsScheduleDeadLetterQueue')}.Arn>`,
      ].sort(),
    );
  });

  it('lets the API create jobs and read a key’s quota jobs in one batch on the jobs table only', () => {
    const create = roleStatements(template, 'ApiFunctionRole').find((s) => s.Sid === 'CreateJobs');
    expect((create ? actionsOf(create) : []).sort()).toEqual(
      ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'].sort(),
    );
    expect(arnText(create?.Resource)).toBe(`<${logicalId('AWS::DynamoDB::Table', 'JobsJobsTable')}.Arn>`);
  });

  it('gives the worker no wildcard action, no sending, and its webhook secrets by name', () => {
    const worker = roleStatements(template, 'ScheduledJobsWorkerRole');
    const actions = worker.flatMap(actionsOf);
    for (const action of actions) expect(action).not.toContain('*');
    expect(actions).toEqual(
      expect.arrayContaining([
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
      ]),
    );
    expect(actions).not.toContain('sqs:SendMessage');
    const webhook = worker.find((s) => s.Sid === 'ReadWebhookSecretsInSsm');
    expect(arnText(webhook?.Resource)).toContain('parameter/switchyard/webhooks/digest');
  });

  it('refuses two schedules whose names would share a construct id, naming both', () => {
    const job = STACK_CONFIG.schedules.hourly;
    const clash = { ...STACK_CONFIG, schedules: { 'a-b': job, a_b: job } };
    expect(() => synthStack(clash)).toThrow(/schedules 'a-b' and 'a_b' would share the construct id 'AB'/);
  });
});
