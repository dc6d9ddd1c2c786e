import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthStack, withAws } from './stack-fixture.js';

describe('the API Gateway account role is left alone', () => {
  it('creates no API Gateway account setting and no logging role, and logs nothing at the stage by default', () => {
    const { template } = synthStack();
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(JSON.stringify(template.findResources('AWS::IAM::Role'))).not.toContain(
      'AmazonAPIGatewayPushToCloudWatchLogs',
    );
    const [stage] = Object.values(template.findResources('AWS::ApiGateway::Stage'));
    expect(stage?.Properties.AccessLogSetting).toBeUndefined();
    expect(JSON.stringify(stage?.Properties.MethodSettings ?? [])).not.toContain('LoggingLevel');
  }, 60_000);

  it('turns on access logs and error-level execution logs with aws.apiGatewayLogs, still without touching the account', () => {
    const { template } = synthStack(withAws({ apiGatewayLogs: true }));
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: Match.arrayWith([Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false })]),
    });
  }, 60_000);

  it('passes cdk-nag with the stage logs on', () => {
    const { app } = synthStack(withAws({ apiGatewayLogs: true }), 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  }, 120_000);
});
