import { Duration, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TimeBasedCanaryTrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { Alias, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { AwsConfig } from '../../lambda/core/catalog/aws-config-schema.js';
import type { BundledFunction } from './bundled-function.js';

/** The alias the REST API invokes. */
export const LIVE_ALIAS = 'live';

/**
 * Which alarms roll a gradual deploy back: those about what callers get from the API (its errors,
 * 5XX rate, latency: every alarm named `Api…`), not a throttle (capacity, not the new code).
 */
export function rollbackAlarms(alarms: Record<string, IAlarm>): IAlarm[] {
  return Object.entries(alarms)
    .filter(([name]) => name.startsWith('Api') && name !== 'ApiThrottles')
    .map(([, alarm]) => alarm);
}

export interface ApiDeploymentProps {
  api: BundledFunction;
  /** `aws.deploy`: a canary share and duration. Absent: every deploy moves the alias at once. */
  deploy: AwsConfig['deploy'];
}

/**
 * The API function's published version and the `live` alias that the REST API invokes: each
 * deploy whose code or settings changed publishes a new version. With `aws.deploy` a CodeDeploy
 * deployment group moves the alias gradually (canary % for canary minutes, then all) and rolls
 * back when an API alarm fires or the deployment fails ({@link ApiDeployment.watch}).
 */
export class ApiDeployment extends Construct {
  readonly alias: Alias;
  readonly group: LambdaDeploymentGroup | undefined;

  constructor(scope: Construct, id: string, props: ApiDeploymentProps) {
    super(scope, id);
    this.alias = new Alias(this, 'LiveAlias', {
      aliasName: LIVE_ALIAS,
      version: props.api.fn.currentVersion,
      description: 'The version the REST API invokes',
    });
    const deploy = props.deploy;
    if (!deploy) return;
    const config = new LambdaDeploymentConfig(this, 'Canary', {
      trafficRouting: new TimeBasedCanaryTrafficRouting({
        percentage: deploy.canaryPercent,
        interval: Duration.minutes(deploy.canaryMinutes),
      }),
    });
    this.group = new LambdaDeploymentGroup(this, 'DeploymentGroup', {
      alias: this.alias,
      deploymentConfig: config,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    Validations.of(this.group).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "CodeDeploy's own role for Lambda deployments: the AWS managed policy limited to reading and moving aliases, reading alarms and invoking CodeDeployHook_* functions.",
    });
  }

  /** The alarms that roll a deploy back (no-op without a deployment group). */
  watch(alarms: IAlarm[]): void {
    for (const alarm of alarms) this.group?.addAlarm(alarm);
  }

  /** What API Gateway invokes. */
  get target(): IFunction {
    return this.alias;
  }
}
