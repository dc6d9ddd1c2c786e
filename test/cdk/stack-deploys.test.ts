import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthStack, withAws } from './stack-fixture.js';

let plain: Template;
let gradual: Template;
beforeAll(() => {
  plain = synthStack().template;
  gradual = synthStack(withAws({ deploy: { canaryPercent: 10, canaryMinutes: 15 } })).template;
}, 120_000);

const logicalId = (template: Template, type: string): string => {
  const ids = Object.keys(template.findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0] as string;
};

describe('deploys: a published version and the live alias', () => {
  it('publishes a version of the API function and points the alias live at it', () => {
    const version = logicalId(plain, 'AWS::Lambda::Version');
    plain.hasResourceProperties('AWS::Lambda::Alias', {
      Name: 'live',
      FunctionVersion: { 'Fn::GetAtt': [version, 'Version'] },
    });
  });

  it('keeps a version when a deploy replaces it, so the alias can be pointed back at it', () => {
    const [version] = Object.values(plain.findResources('AWS::Lambda::Version'));
    expect(version?.DeletionPolicy).toBe('Retain');
    expect(version?.UpdateReplacePolicy).toBe('Retain');
  });

  it('has the REST API invoke the alias, never $LATEST', () => {
    const alias = logicalId(plain, 'AWS::Lambda::Alias');
    const methods = Object.values(plain.findResources('AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(2);
    for (const method of methods)
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(`"Ref":"${alias}"`);
    plain.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { Ref: alias },
      Principal: 'apigateway.amazonaws.com',
    });
  });

  it('creates no CodeDeploy resources without aws.deploy: the alias moves at once', () => {
    plain.resourceCountIs('AWS::CodeDeploy::DeploymentGroup', 0);
    plain.resourceCountIs('AWS::CodeDeploy::DeploymentConfig', 0);
    plain.resourceCountIs('AWS::CodeDeploy::Application', 0);
  });
});

describe('deploys: gradual with aws.deploy', () => {
  it('shifts canaryPercent of the traffic for canaryMinutes first', () => {
    gradual.hasResourceProperties('AWS::CodeDeploy::DeploymentConfig', {
      ComputePlatform: 'Lambda',
      TrafficRoutingConfig: {
        Type: 'TimeBasedCanary',
        TimeBasedCanary: { CanaryPercentage: 10, CanaryInterval: 15 },
      },
    });
  });

  it('deploys the live alias through a deployment group with that config', () => {
    const config = logicalId(gradual, 'AWS::CodeDeploy::DeploymentConfig');
    const group = logicalId(gradual, 'AWS::CodeDeploy::DeploymentGroup');
    gradual.hasResourceProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: { Ref: config },
      DeploymentStyle: { DeploymentOption: 'WITH_TRAFFIC_CONTROL', DeploymentType: 'BLUE_GREEN' },
    });
    gradual.hasResource('AWS::Lambda::Alias', {
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: Match.anyValue(),
          DeploymentGroupName: { Ref: group },
        },
      },
    });
  });

  it('rolls back on a failed deployment and when an API alarm fires (errors, 5XX rate), not on throttles', () => {
    const [group] = Object.values(gradual.findResources('AWS::CodeDeploy::DeploymentGroup'));
    if (!group) throw new Error('no deployment group');
    expect(group.Properties.AutoRollbackConfiguration).toEqual({
      Enabled: true,
      Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
    });
    const alarmIds = Object.keys(gradual.findResources('AWS::CloudWatch::Alarm'));
    const watched = (group.Properties.AlarmConfiguration.Alarms as { Name: { Ref: string } }[]).map(
      (a) => a.Name.Ref,
    );
    expect(group.Properties.AlarmConfiguration.Enabled).toBe(true);
    const named = (prefix: string) => alarmIds.filter((id) => id.startsWith(`Operations${prefix}Alarm`));
    expect(named('ApiErrors')).toHaveLength(1);
    expect(named('Api5xxRate')).toHaveLength(1);
    expect(watched).toEqual(expect.arrayContaining([...named('ApiErrors'), ...named('Api5xxRate')]));
    expect(watched).not.toEqual(expect.arrayContaining(named('ApiThrottles')));
    expect(watched.every((id) => id.startsWith('OperationsApi'))).toBe(true);
  });

  it('passes cdk-nag with the deployment group, its role acknowledged in code', () => {
    const { app } = synthStack(withAws({ deploy: { canaryPercent: 5 } }), 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  }, 120_000);
});
