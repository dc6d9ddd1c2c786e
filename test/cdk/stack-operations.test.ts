import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../lib/constructs/operations.js';
import { synthStack, withAws } from './stack-fixture.js';

let template: Template;
let withEmail: Template;
beforeAll(() => {
  template = synthStack().template;
  withEmail = synthStack(withAws({ alarmEmail: 'oncall@example.com' }), 'SwitchyardStaging').template;
});

/** The one resource of `type` whose logical id starts with `prefix`. */
function resource(t: Template, type: string, prefix: string): { id: string; props: Record<string, unknown> } {
  const found = Object.entries(t.findResources(type)).filter(([id]) => id.startsWith(prefix));
  expect(found).toHaveLength(1);
  const [id, r] = found[0] ?? ['', {}];
  return { id, props: (r as { Properties: Record<string, unknown> }).Properties };
}

describe('Switchyard stack: alarms that arrive', () => {
  it('encrypts the alarm topic with its own rotating key, which CloudWatch may use to publish', () => {
    const key = resource(template, 'AWS::KMS::Key', 'OperationsAlarmTopicKey');
    expect(key.props.EnableKeyRotation).toBe(true);
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [key.id, 'Arn'] },
    });
    expect(JSON.stringify(template.toJSON())).not.toContain('alias/aws/sns');
  });

  it('subscribes aws.alarmEmail to the topic, and nobody without it', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^OperationsAlarmTopic') },
    });
  });

  it('outputs the API URL, the OpenAI base URL, the alarm topic, the three tables, the queues and the dashboard', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const name of [
      'ApiUrl',
      'OpenAIBaseUrl',
      'AlarmTopicArn',
      'BreakerTableName',
      'CallerKeysTableName',
      'JobsTableName',
      'JobQueueUrl',
      'DeadLetterQueueUrl',
      'ScheduleDeadLetterQueueUrl',
      'DashboardName',
    ]) {
      expect(outputs[name], name).toBeDefined();
    }
    expect(outputs.AlarmTopicArn?.Value).toEqual({
      Ref: resource(template, 'AWS::SNS::Topic', 'Operations').id,
    });
    expect(outputs.DashboardName?.Value).toBe('Switchyard');
    expect(JSON.stringify(outputs.OpenAIBaseUrl?.Value)).toContain('/v1');
  });

  it('names the dashboard and the REST API after the stack, so a second stack does not collide', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Switchyard' });
    withEmail.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'SwitchyardStaging' });
    withEmail.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'SwitchyardStaging' });
  });

  it('pages on a quarantine (upstream_auth, model_not_found), never on routine breaker openings', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Switchyard',
      MetricName: 'QuarantineOpenings',
      Dimensions: [{ Name: 'service', Value: 'switchyard' }],
      Threshold: ALARM_THRESHOLDS.quarantineOpenings,
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^OperationsAlarmTopic') }],
    });
    const alarms = JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).not.toContain('"BreakerOpenings"');
    // Routine openings stay visible on the dashboard.
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain('BreakerOpenings');
    expect(body).toContain('QuarantineOpenings');
  });

  it.each([
    ['Errors', ALARM_THRESHOLDS.apiErrors],
    ['Throttles', ALARM_THRESHOLDS.apiThrottles],
  ])('alarms on API function %s', (metric, threshold) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: metric,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: Match.stringLikeRegexp('^ApiFunctionHandler') } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: threshold,
    });
  });
});
