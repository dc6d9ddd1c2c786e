import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthStack, withAws } from './stack-fixture.js';

/** Managed Instances in a VPC the config names, with every setting given. */
let named: Template;
beforeAll(() => {
  named = synthStack(
    withAws({
      compute: 'managed-instances',
      memoryMb: { api: 8192 },
      managedInstances: {
        vpc: { subnetIds: ['subnet-0aaa1111', 'subnet-0bbb2222'], securityGroupIds: ['sg-0ccc3333'] },
        instanceTypes: ['c7g.2xlarge'],
        maxVCpuCount: 96,
        targetCpuPercent: 45,
        perExecutionEnvironmentMaxConcurrency: 512,
        memoryGiBPerVCpu: 4,
        minExecutionEnvironments: 3,
        maxExecutionEnvironments: 12,
      },
    }),
  ).template;
}, 120_000);

describe('compute: managed-instances in a named VPC', () => {
  it('creates no VPC, NAT or security group, and uses exactly the named subnets and group', () => {
    named.resourceCountIs('AWS::EC2::VPC', 0);
    named.resourceCountIs('AWS::EC2::NatGateway', 0);
    named.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    named.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      VpcConfig: { SubnetIds: ['subnet-0aaa1111', 'subnet-0bbb2222'], SecurityGroupIds: ['sg-0ccc3333'] },
    });
  });

  it('takes instance types and scaling limits from the config', () => {
    named.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      InstanceRequirements: { AllowedInstanceTypes: ['c7g.2xlarge'], Architectures: ['arm64'] },
      CapacityProviderScalingConfig: {
        MaxVCpuCount: 96,
        ScalingPolicies: [
          { PredefinedMetricType: 'LambdaCapacityProviderAverageCPUUtilization', TargetValue: 45 },
        ],
      },
    });
    named.hasResourceProperties('AWS::Lambda::Version', {
      FunctionScalingConfig: { MinExecutionEnvironments: 3, MaxExecutionEnvironments: 12 },
    });
  });

  it('sets concurrency, memory ratio and memory from the config', () => {
    named.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 8192,
      CapacityProviderConfig: {
        LambdaManagedInstancesCapacityProviderConfig: {
          PerExecutionEnvironmentMaxConcurrency: 512,
          ExecutionEnvironmentMemoryGiBPerVCpu: 4,
        },
      },
    });
  });

  it('passes cdk-nag', () => {
    const { app } = synthStack(
      withAws({
        compute: 'managed-instances',
        managedInstances: { vpc: { subnetIds: ['subnet-0aaa1111'], securityGroupIds: ['sg-0ccc3333'] } },
      }),
      'Switchyard',
      true,
    );
    expect(() => app.synth()).not.toThrow();
  }, 120_000);
});
