import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { budgetCapId } from '../../lambda/aws/budget-cap.js';
import { ALARM_THRESHOLDS } from '../../lib/constructs/alarm-thresholds.js';
import {
  ACCOUNT,
  alarmNamed,
  alarmsOf,
  allowsCloudWatch,
  arnOf,
  keyPolicy,
  logicalId,
  REGION,
  topicPolicy,
} from './alarm-template.js';
import { STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

/** The fixture's config with a spend cap per kind: a named key, the unnamed keys, a pipeline. */
const WITH_CAPS = {
  ...STACK_CONFIG,
  admission: {
    keys: { alice: { usdPerDay: 5 } },
    defaultKey: { usdPerDay: 1 },
    pipelines: { 'comment-filter': { usdPerDay: 20 } },
  },
};

let template: Template;
let tuned: Template;
beforeAll(() => {
  template = synthStack(WITH_CAPS).template;
  tuned = synthStack(
    withAws(
      {
        alarms: {
          minRequests: 50,
          exhaustedPercent: 2,
          api5xxPercent: 10,
          apiLatencyP99Ms: 9000,
          budgetWarningPercent: 90,
          oldestJobAgeSeconds: 600,
        },
      },
      WITH_CAPS,
    ),
    'SwitchyardStaging',
  ).template;
}, 120_000); // two synths: seconds each, more on a loaded machine

describe('alarm topic: CloudWatch may publish, for this stack’s alarms only', () => {
  it('lets every alarm of the stack publish to the topic and use its key', () => {
    const names = Object.values(alarmsOf(template)).map((a) => String(a.Properties.AlarmName));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      expect(allowsCloudWatch(topicPolicy(template), 'sns:Publish', arnOf(name)), name).toBe(true);
      expect(allowsCloudWatch(keyPolicy(template), 'kms:GenerateDataKey', arnOf(name)), name).toBe(true);
      expect(allowsCloudWatch(keyPolicy(template), 'kms:Decrypt', arnOf(name)), name).toBe(true);
    }
  });

  it('refuses alarms of another stack, another account, and publishes without TLS', () => {
    const statements = topicPolicy(template);
    expect(allowsCloudWatch(statements, 'sns:Publish', arnOf('SwitchyardStaging.ExhaustedRate'))).toBe(false);
    expect(allowsCloudWatch(statements, 'sns:Publish', arnOf('Switchyard-Other-Alarm'))).toBe(false);
    expect(
      allowsCloudWatch(statements, 'sns:Publish', arnOf('Switchyard.ExhaustedRate'), '210987654321'),
    ).toBe(false);
    expect(allowsCloudWatch(keyPolicy(template), 'kms:Decrypt', arnOf('Other.ExhaustedRate'))).toBe(false);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('scopes the topic allow and the key grant by the same account and alarm-name conditions', () => {
    const conditions = {
      StringEquals: { 'aws:SourceAccount': ACCOUNT },
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, `:cloudwatch:${REGION}:${ACCOUNT}:alarm:Switchyard.*`],
          ],
        },
      },
    };
    expect(topicPolicy(template)).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: logicalId(template, 'AWS::SNS::Topic', 'OperationsAlarmTopic') },
        Condition: conditions,
      }),
    );
    expect(keyPolicy(template)).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Condition: conditions,
      }),
    );
  });

  it("scopes a second stack's grants to its own alarm names", () => {
    const name = String(alarmNamed(tuned, 'ExhaustedRate', 'SwitchyardStaging').props.AlarmName);
    expect(allowsCloudWatch(topicPolicy(tuned), 'sns:Publish', arnOf(name))).toBe(true);
    expect(allowsCloudWatch(topicPolicy(tuned), 'sns:Publish', arnOf('Switchyard.ExhaustedRate'))).toBe(
      false,
    );
  });
});

describe('alarms: each one present, guarded, and heard when it ends', () => {
  it('has exactly these alarms with schedules and three known caps', () => {
    const alice = budgetCapId({ scope: 'key', name: 'alice', field: 'admission.keys.alice.usdPerDay' });
    const caps = [`key-${alice.slice(4)}`, 'key-default', 'pipeline-comment-filter'];
    expect(
      Object.values(alarmsOf(template))
        .map((a) => a.Properties.AlarmName)
        .sort(),
    ).toEqual(
      [
        'QuarantineOpened',
        'ExhaustedRate',
        'ApiErrors',
        'ApiThrottles',
        'Api5xxRate',
        'ApiLatencyP99',
        'DeadLetterDepth',
        'OldestQueuedJob',
        'WorkerErrors',
        'SchedulerErrors',
        'ScheduleDeadLetterDepth',
        'BreakerStoreFailures',
        'AdmissionStoreFailures',
        'SsmSnapshotFailures',
        'BreakerTableThrottles',
        'JobsTableThrottles',
        'KeyBudgetWarning',
        'PipelineBudgetWarning',
        ...caps.map((c) => `BudgetWarning-${c}`),
      ]
        .map((n) => `Switchyard.${n}`)
        .sort(),
    );
  });

  it('notifies the topic when each alarm fires and again when it returns to OK', () => {
    const topic = { Ref: logicalId(template, 'AWS::SNS::Topic', 'OperationsAlarmTopic') };
    for (const alarm of Object.values(alarmsOf(template))) {
      expect(alarm.Properties.AlarmActions, String(alarm.Properties.AlarmName)).toEqual([topic]);
      expect(alarm.Properties.OKActions, String(alarm.Properties.AlarmName)).toEqual([topic]);
    }
  });

  it.each([
    ['ExhaustedRate', 'IF(requests >= 20, 100 * exhausted / requests, 0)', 1, 2],
    ['Api5xxRate', 'IF(requests >= 20, 100 * errors / requests, 0)', 5, 2],
    ['ApiLatencyP99', 'IF(requests >= 20, latency, 0)', 23_200, 3],
  ])('judges %s only in periods with at least 20 requests', (name, expression, threshold, periods) => {
    const { props } = alarmNamed(template, name);
    expect(props).toMatchObject({
      Threshold: threshold,
      EvaluationPeriods: periods,
      DatapointsToAlarm: periods,
    });
    expect(props.Metrics).toContainEqual(expect.objectContaining({ Expression: expression }));
  });

  it('takes the p99 of API Gateway latency for the latency alarm', () => {
    expect(alarmNamed(template, 'ApiLatencyP99').props.Metrics).toContainEqual(
      expect.objectContaining({
        MetricStat: expect.objectContaining({
          Metric: expect.objectContaining({ Namespace: 'AWS/ApiGateway', MetricName: 'Latency' }),
          Stat: 'p99',
        }),
      }),
    );
  });

  it.each([
    ['WorkerErrors', 'ScheduledJobsWorker', ALARM_THRESHOLDS.workerErrors],
    ['SchedulerErrors', 'ScheduledJobsScheduler', ALARM_THRESHOLDS.schedulerErrors],
  ])('alarms on %s (Lambda Errors of its function)', (name, fn, threshold) => {
    expect(alarmNamed(template, name).props).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: expect.stringMatching(new RegExp(`^${fn}`)) } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: threshold,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on the age of the oldest queued job', () => {
    expect(alarmNamed(template, 'OldestQueuedJob').props).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^JobsJobQueue/), 'QueueName'] } },
      ],
      Statistic: 'Maximum',
      Threshold: 1800,
    });
  });

  it.each([
    ['BreakerStoreFailures', 'BreakerStoreFailures', ALARM_THRESHOLDS.breakerStoreFailures, 2],
    ['AdmissionStoreFailures', 'AdmissionStoreFailures', ALARM_THRESHOLDS.admissionStoreFailures, 1],
    ['SsmSnapshotFailures', 'SsmSnapshotFailures', ALARM_THRESHOLDS.ssmSnapshotFailures, 2],
  ])('alarms on %s, the service-wide count the code emits', (name, metric, threshold, periods) => {
    expect(alarmNamed(template, name).props).toMatchObject({
      Namespace: 'Switchyard',
      MetricName: metric,
      Dimensions: [{ Name: 'service', Value: 'switchyard' }],
      Statistic: 'Sum',
      Threshold: threshold,
      EvaluationPeriods: periods,
    });
  });

  it.each([
    ['BreakerTableThrottles', 'BreakerTable'],
    ['JobsTableThrottles', 'JobsJobsTable'],
  ])('alarms on %s: read and write throttle events of that table', (name, table) => {
    const metrics = alarmNamed(template, name).props.Metrics as {
      MetricStat?: { Metric: Record<string, unknown> };
    }[];
    const stats = metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    expect(stats.map((s) => s.MetricName).sort()).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
    for (const s of stats) {
      expect(s).toMatchObject({
        Namespace: 'AWS/DynamoDB',
        Dimensions: [{ Name: 'TableName', Value: { Ref: expect.stringMatching(new RegExp(`^${table}`)) } }],
      });
    }
  });
});

describe('budget warnings: no cap hides another, and a refusal is not a page', () => {
  const budgetAlarms = () =>
    Object.values(alarmsOf(template)).filter((a) => a.Properties.MetricName === 'BudgetUsedPercent');

  it('warns per scope kind at 80 % and never at 100 %', () => {
    for (const [name, scope] of [
      ['KeyBudgetWarning', 'key'],
      ['PipelineBudgetWarning', 'pipeline'],
    ] as const) {
      expect(alarmNamed(template, name).props).toMatchObject({
        Dimensions: expect.arrayContaining([{ Name: 'scope', Value: scope }]),
        Statistic: 'Maximum',
        Threshold: 80,
        TreatMissingData: 'ignore',
      });
    }
    expect(budgetAlarms().map((a) => a.Properties.Threshold)).not.toContain(100);
    expect(budgetAlarms()).toHaveLength(5);
  });

  it('warns per cap the config sets, by a cap dimension that never carries the key name', () => {
    const alice = budgetCapId({ scope: 'key', name: 'alice', field: 'admission.keys.alice.usdPerDay' });
    expect(alice).toMatch(/^key:[0-9a-f]{12}$/);
    const capsAlarmed = budgetAlarms().flatMap((a) =>
      (a.Properties.Dimensions as { Name: string; Value: string }[])
        .filter((d) => d.Name === 'cap')
        .map((d) => d.Value),
    );
    expect(capsAlarmed.sort()).toEqual([alice, 'key:(default)', 'pipeline:comment-filter'].sort());
    const dimensions = JSON.stringify(Object.values(alarmsOf(template)).map((a) => a.Properties.Dimensions));
    expect(dimensions).not.toContain('alice');
    // The description tells the person paged which config field it is.
    expect(alarmNamed(template, `BudgetWarning-key-${alice.slice(4)}`).props.AlarmDescription).toContain(
      'admission.keys.alice.usdPerDay',
    );
  });

  it('adds no per-cap warning without caps in the config', { timeout: 60_000 }, () => {
    const plain = synthStack().template;
    const names = Object.values(alarmsOf(plain)).map((a) => String(a.Properties.AlarmName));
    expect(names).toHaveLength(18); // 16, and two for schedules (docs/operations.md)
    expect(names.filter((n) => n.includes('Budget')).sort()).toEqual([
      'Switchyard.KeyBudgetWarning',
      'Switchyard.PipelineBudgetWarning',
    ]);
  });
});

describe('thresholds from aws.alarms', () => {
  it.each([
    ['ExhaustedRate', 2, 'IF(requests >= 50, 100 * exhausted / requests, 0)'],
    ['Api5xxRate', 10, 'IF(requests >= 50, 100 * errors / requests, 0)'],
    ['ApiLatencyP99', 9000, 'IF(requests >= 50, latency, 0)'],
  ])('sets %s to %s with the minimum-request guard', (name, threshold, expression) => {
    const { props } = alarmNamed(tuned, name, 'SwitchyardStaging');
    expect(props.Threshold).toBe(threshold);
    expect(props.Metrics).toContainEqual(expect.objectContaining({ Expression: expression }));
  });

  it('sets the budget warnings and the oldest-job age', () => {
    expect(alarmNamed(tuned, 'KeyBudgetWarning', 'SwitchyardStaging').props.Threshold).toBe(90);
    expect(
      alarmNamed(tuned, 'BudgetWarning-pipeline-comment-filter', 'SwitchyardStaging').props.Threshold,
    ).toBe(90);
    expect(alarmNamed(tuned, 'OldestQueuedJob', 'SwitchyardStaging').props.Threshold).toBe(600);
  });
});

describe('dashboard', () => {
  it('shows every alarm by state', () => {
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain('"type\\":\\"alarm\\"');
    for (const id of Object.keys(alarmsOf(template)))
      expect(body, id).toContain(`"Fn::GetAtt":["${id}","Arn"]`);
  });

  it('draws the new sources: store failures, table throttles, queue age, budgets', () => {
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    for (const metric of [
      'BreakerStoreFailures',
      'AdmissionStoreFailures',
      'SsmSnapshotFailures',
      'ReadThrottleEvents',
      'ApproximateAgeOfOldestMessage',
      'BudgetUsedPercent',
    ])
      expect(body, metric).toContain(metric);
  });
});
