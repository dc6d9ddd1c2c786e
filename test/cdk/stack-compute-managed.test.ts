import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, roleStatements, synthStack, withAws } from './stack-fixture.js';

/** aws.compute: "managed-instances" with every managedInstances default, the stack's own VPC. */
let managed: Template;
beforeAll(() => {
  managed = synthStack(withAws({ compute: 'managed-instances' })).template;
}, 120_000);

const onlyId = (template: Template, type: string, prefix = ''): string => {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0] as string;
};

describe('compute: managed-instances', () => {
  it('creates one capacity provider: arm64, m7g.large and m7g.xlarge, CPU target 60 %, at most 48 vCPUs', () => {
    managed.resourceCountIs('AWS::Lambda::CapacityProvider', 1);
    managed.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      InstanceRequirements: { AllowedInstanceTypes: ['m7g.large', 'm7g.xlarge'], Architectures: ['arm64'] },
      CapacityProviderScalingConfig: {
        MaxVCpuCount: 48,
        ScalingMode: 'Manual',
        ScalingPolicies: [
          { PredefinedMetricType: 'LambdaCapacityProviderAverageCPUUtilization', TargetValue: 60 },
        ],
      },
    });
  });

  it('runs the API function on it: 256 invocations per environment, 2 GiB per vCPU, 2048 MB', () => {
    const provider = onlyId(managed, 'AWS::Lambda::CapacityProvider');
    managed.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 2048,
      Architectures: ['arm64'],
      Runtime: 'nodejs24.x',
      PublishToLatestPublished: false,
      CapacityProviderConfig: {
        LambdaManagedInstancesCapacityProviderConfig: {
          CapacityProviderArn: { 'Fn::GetAtt': [provider, 'Arn'] },
          PerExecutionEnvironmentMaxConcurrency: 256,
          ExecutionEnvironmentMemoryGiBPerVCpu: 2,
        },
      },
    });
  });

  it('is a different function from the on-demand one (ManagedHandler), so switching replaces it', () => {
    const fn = onlyId(managed, 'AWS::Lambda::Function', 'ApiFunction');
    expect(fn.startsWith('ApiFunctionManagedHandler')).toBe(true);
  });

  it('keeps the worker and the scheduler on-demand', () => {
    const functions = Object.entries(managed.findResources('AWS::Lambda::Function'));
    const onProvider = functions.filter(([, f]) => f.Properties.CapacityProviderConfig !== undefined);
    expect(onProvider.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['ApiFunctionManagedHandler']);
  });

  it('publishes a retained version keeping two execution environments, and points the live alias at it', () => {
    const fn = onlyId(managed, 'AWS::Lambda::Function', 'ApiFunction');
    const version = onlyId(managed, 'AWS::Lambda::Version');
    managed.hasResource('AWS::Lambda::Version', {
      Properties: { FunctionName: { Ref: fn }, FunctionScalingConfig: { MinExecutionEnvironments: 2 } },
      DeletionPolicy: 'Retain',
    });
    managed.hasResourceProperties('AWS::Lambda::Alias', {
      Name: 'live',
      FunctionName: { Ref: fn },
      FunctionVersion: { 'Fn::GetAtt': [version, 'Version'] },
    });
  });

  it('places instances in the private subnets of a VPC it creates, behind one NAT, with a DynamoDB endpoint', () => {
    managed.resourceCountIs('AWS::EC2::VPC', 1);
    managed.resourceCountIs('AWS::EC2::NatGateway', 1);
    managed.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('dynamodb')])],
      }),
    });
    const [provider] = Object.values(managed.findResources('AWS::Lambda::CapacityProvider'));
    if (!provider) throw new Error('no capacity provider');
    const subnets = (provider.Properties.VpcConfig.SubnetIds as { Ref: string }[]).map((s) => s.Ref);
    expect(subnets).toHaveLength(2);
    for (const subnet of subnets) expect(subnet).toMatch(/^ManagedInstancesVpcinstancesSubnet/);
  });

  it('gives the instances a security group with no inbound rule', () => {
    const sg = onlyId(managed, 'AWS::EC2::SecurityGroup', 'ManagedInstances');
    const [group] = Object.values(managed.findResources('AWS::EC2::SecurityGroup'));
    expect(group?.Properties.SecurityGroupIngress).toBeUndefined();
    managed.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      VpcConfig: { SecurityGroupIds: [{ 'Fn::GetAtt': [sg, 'GroupId'] }] },
    });
  });

  it('lets Lambda alone assume the operator role, which holds only AWSLambdaManagedEC2ResourceOperator', () => {
    const role = onlyId(managed, 'AWS::IAM::Role', 'ManagedInstancesCapacityProviderOperatorRole');
    managed.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
        ],
      },
      ManagedPolicyArns: [
        {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/AWSLambdaManagedEC2ResourceOperator'],
          ],
        },
      ],
    });
    managed.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      PermissionsConfig: { CapacityProviderOperatorRoleArn: { 'Fn::GetAtt': [role, 'Arn'] } },
    });
    const inline = Object.keys(managed.findResources('AWS::IAM::Policy'));
    expect(inline.filter((id) => id.startsWith('ManagedInstances'))).toEqual([]);
  });

  it('grants the API role exactly what it had on-demand (no EC2 action)', () => {
    const actions = roleStatements(managed, 'ApiFunctionRole').flatMap(actionsOf);
    expect(actions.filter((a) => a.startsWith('ec2:'))).toEqual([]);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'sqs:SendMessage']));
  });
});

describe('compute: managed-instances under cdk-nag', () => {
  it('passes cdk-nag with the VPC it creates', () => {
    const { app } = synthStack(withAws({ compute: 'managed-instances' }), 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  }, 120_000);
});
