import { Validations } from 'aws-cdk-lib';
import {
  GatewayVpcEndpointAwsService,
  InstanceType,
  type ISecurityGroup,
  type ISubnet,
  SecurityGroup,
  Subnet,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import {
  Architecture,
  CapacityProvider,
  type IFunction,
  InstanceTypeFilter,
  ScalingOptions,
  TargetTrackingScalingPolicy,
} from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { AwsConfig } from '../../lambda/core/catalog/aws-config-schema.js';

export interface ManagedInstancesProps {
  /** `aws.managedInstances`, defaults filled. */
  settings: AwsConfig['managedInstances'];
}

/**
 * A Lambda Managed Instances capacity provider for the API function: arm64 instances of the
 * configured types, in the VPC the config names (`managedInstances.vpc`) or in one this construct
 * creates (two AZs, private subnets behind one NAT gateway: the gateway calls providers on the
 * internet; a DynamoDB gateway endpoint keeps breaker traffic off the NAT). Scaling follows CPU at
 * `targetCpuPercent` up to `maxVCpuCount`. The operator role is the CDK's (the AWS managed policy
 * `AWSLambdaManagedEC2ResourceOperator`, assumed by Lambda only).
 */
export class ManagedInstances extends Construct {
  readonly provider: CapacityProvider;
  /** The VPC this construct created; undefined when the config names one. */
  readonly vpc: Vpc | undefined;
  private readonly settings: AwsConfig['managedInstances'];

  constructor(scope: Construct, id: string, props: ManagedInstancesProps) {
    super(scope, id);
    this.settings = props.settings;
    const named = props.settings.vpc;
    let subnets: ISubnet[];
    let securityGroups: ISecurityGroup[];
    if (named) {
      subnets = named.subnetIds.map((subnetId, i) => Subnet.fromSubnetId(this, `Subnet${i}`, subnetId));
      securityGroups = named.securityGroupIds.map((sg, i) =>
        SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${i}`, sg),
      );
    } else {
      this.vpc = new Vpc(this, 'Vpc', {
        maxAzs: 2,
        natGateways: 1,
        subnetConfiguration: [
          { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
          { name: 'instances', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        ],
        gatewayEndpoints: { DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB } },
      });
      Validations.of(this.vpc).acknowledge({
        id: 'AwsSolutions-VPC7',
        reason:
          'The VPC carries only the gateway’s own outbound calls, each already in the attempt ledger; flow logs would bill per GB for no new evidence. A VPC with flow logs can be named in aws.managedInstances.vpc.',
      });
      subnets = this.vpc.privateSubnets;
      securityGroups = [
        new SecurityGroup(this, 'InstanceSecurityGroup', {
          vpc: this.vpc,
          description: 'Switchyard API instances: outbound only (providers, AWS APIs)',
          allowAllOutbound: true,
        }),
      ];
    }
    this.provider = new CapacityProvider(this, 'CapacityProvider', {
      subnets,
      securityGroups,
      architectures: [Architecture.ARM_64],
      instanceTypeFilter: InstanceTypeFilter.allow(
        props.settings.instanceTypes.map((t) => new InstanceType(t)),
      ),
      maxVCpuCount: props.settings.maxVCpuCount,
      scalingOptions: ScalingOptions.manual([
        TargetTrackingScalingPolicy.cpuUtilization(props.settings.targetCpuPercent),
      ]),
    });
    Validations.of(this.provider).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]',
      reason:
        'The operator role Lambda assumes to launch and manage the capacity provider’s EC2 instances: the AWS managed policy written for exactly that, kept current by AWS as the service changes.',
    });
  }

  /** Runs `fn` on this capacity provider with the configured concurrency, memory ratio and scaling. */
  addFunction(fn: IFunction): void {
    const s = this.settings;
    this.provider.addFunction(fn, {
      perExecutionEnvironmentMaxConcurrency: s.perExecutionEnvironmentMaxConcurrency,
      executionEnvironmentMemoryGiBPerVCpu: s.memoryGiBPerVCpu,
      // The `live` alias invokes numbered versions; nothing invokes $LATEST.PUBLISHED.
      publishToLatestPublished: false,
    });
  }

  /** The execution environments each published version keeps (the `live` alias's version). */
  get versionScaling(): { minExecutionEnvironments: number; maxExecutionEnvironments?: number } {
    const { minExecutionEnvironments, maxExecutionEnvironments } = this.settings;
    return maxExecutionEnvironments === undefined
      ? { minExecutionEnvironments }
      : { minExecutionEnvironments, maxExecutionEnvironments };
  }
}
