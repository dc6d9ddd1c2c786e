import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';
import { ApiDeployment, rollbackAlarms } from './constructs/api-deployment.js';
import { createApiFunction } from './constructs/api-function.js';
import { BreakerTable } from './constructs/breaker-table.js';
import { CallerKeyTable } from './constructs/caller-key-table.js';
import { JobQueues } from './constructs/job-queues.js';
import { ManagedInstances } from './constructs/managed-instances.js';
import { Operations } from './constructs/operations.js';
import { RegionalDomain } from './constructs/regional-domain.js';
import { ScheduledJobs } from './constructs/scheduled-jobs.js';
import { acknowledgeStageLogs, SwitchyardApi } from './constructs/switchyard-api.js';
import { checkDeployable, deploySettings } from './deploy-settings.js';
import type { RegionPlacement } from './multi-region.js';
import { recordStage } from './stage-names.js';
import { workerTimeoutSeconds } from './worker-timeout.js';

export interface SwitchyardStackProps extends StackProps {
  config: SwitchyardConfig;
  /** The config file bundled with the handler (validated already). */
  configFile: string;
  /** One region of `aws.regions` (docs/operations.md#a-second-region); absent: a single-region stack. */
  placement?: RegionPlacement | undefined;
}

/**
 * One deployment of Switchyard: the API, its Lambda, the breaker table, jobs, alarms. The config
 * chains travel in the bundled config file; the stack creates no `<prefix>/chains/*` parameter,
 * so a deploy never touches an operator's override (docs/design.md#chain-sources).
 */
export class SwitchyardStack extends Stack {
  constructor(scope: Construct, id: string, props: SwitchyardStackProps) {
    // A production stage cannot be deleted by a stray `cdk destroy`.
    super(scope, id, {
      ...props,
      terminationProtection: props.terminationProtection ?? props.config.aws.production,
    });
    const { config } = props;
    recordStage(this, config.aws.stage);
    const settings = deploySettings(config);
    checkDeployable(config, settings);
    const { ssmPrefix } = settings;

    const breakers = new BreakerTable(this, 'BreakerTable', props.placement?.breakerTable);
    const callerKeys = new CallerKeyTable(this, 'CallerKeys');
    // Follows the longest pipeline deadline, so a job never outlives its worker.
    const workerTimeout = workerTimeoutSeconds(config);
    const queues = new JobQueues(this, 'Jobs', {
      maxReceiveCount: config.jobs.maxReceiveCount,
      retentionDays: config.jobs.retentionDays,
      workerTimeoutSeconds: workerTimeout,
    });
    const managedInstances =
      settings.compute === 'managed-instances'
        ? new ManagedInstances(this, 'ManagedInstances', { settings: config.aws.managedInstances })
        : undefined;
    const api = createApiFunction(this, 'ApiFunction', {
      breakerTable: breakers.table,
      callerKeysTable: callerKeys.table,
      ssmPrefix,
      configFile: props.configFile,
      config,
      timeoutSeconds: settings.apiFunctionTimeoutSeconds,
      reservedConcurrency: settings.apiReservedConcurrency,
      jobs: { table: queues.table, queues },
      memoryMb: settings.memoryMb.api,
      managedInstances,
    });
    const scheduled = new ScheduledJobs(this, 'ScheduledJobs', {
      schedules: config.schedules,
      queues,
      breakerTable: breakers.table,
      ssmPrefix,
      configFile: props.configFile,
      config,
      workerTimeoutSeconds: workerTimeout,
      workerMaxConcurrency: settings.workerMaxConcurrency,
      memoryMb: settings.memoryMb,
    });
    const deployment = new ApiDeployment(this, 'ApiDeployment', { api, deploy: config.aws.deploy });
    const gateway = new SwitchyardApi(this, 'Api', {
      handler: deployment.target,
      integrationTimeoutSeconds: settings.integrationTimeoutSeconds,
      rateLimit: settings.stageRateLimit,
      burstLimit: settings.stageBurstLimit,
      logs: config.aws.apiGatewayLogs,
    });
    const operations = new Operations(this, 'Operations', {
      handler: api.fn,
      api: gateway.api,
      integrationTimeoutSeconds: settings.integrationTimeoutSeconds,
      config,
      breakerTable: breakers.table,
      jobs: {
        table: queues.table,
        queue: queues.queue,
        deadLetters: queues.deadLetters,
        worker: scheduled.worker.fn,
        scheduler: scheduled.scheduler?.fn,
        scheduleDeadLetters: scheduled.scheduleDeadLetters,
      },
      alarmEmail: settings.alarmEmail,
      dashboardName: this.stackName,
      alarmNamePrefix: this.stackName,
    });
    deployment.watch(rollbackAlarms(operations.alarms));
    const domain =
      config.aws.domain && props.placement
        ? new RegionalDomain(this, 'Domain', {
            api: gateway.api,
            domain: config.aws.domain,
            region: props.placement.region,
          })
        : undefined;

    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output('ApiUrl', gateway.api.url, 'The API stage URL');
    output('OpenAIBaseUrl', gateway.api.urlForPath('/v1'), 'baseURL for OpenAI clients');
    output(
      'AlarmTopicArn',
      operations.topic.topicArn,
      'Subscribe here to receive the alarms; switchyard doctor --alarm-topic <this>',
    );
    output('BreakerTableName', breakers.table.tableName, 'Breaker state (SWITCHYARD_TABLE)');
    output(
      'CallerKeysTableName',
      callerKeys.table.tableName,
      'Caller keys, hashed (SWITCHYARD_KEYS_TABLE): switchyard keys add|list|revoke|migrate --table <this>',
    );
    output('JobsTableName', queues.table.tableName, 'Job records (SWITCHYARD_JOBS_TABLE)');
    output('JobQueueUrl', queues.queue.queueUrl, 'switchyard replay --queue <this>');
    output('DeadLetterQueueUrl', queues.deadLetters.queueUrl, 'Jobs waiting for a replay');
    if (scheduled.scheduleDeadLetters) {
      output(
        'ScheduleDeadLetterQueueUrl',
        scheduled.scheduleDeadLetters.queueUrl,
        'Schedules whose fan-out never started',
      );
    }
    if (scheduled.schedules) {
      const group = scheduled.schedules.group.scheduleGroupName;
      output('ScheduleGroupName', group, 'aws scheduler list-schedules --group-name <this>');
    }
    output('DashboardName', operations.dashboardName, 'The CloudWatch dashboard');
    if (domain && config.aws.domain) {
      output('DomainUrl', `https://${config.aws.domain.name}/v1`, 'baseURL for OpenAI clients, every region');
      output('HealthCheckId', domain.healthCheck.healthCheckId, "This region's Route 53 health check");
    }

    acknowledgeFindings(gateway);
    acknowledgeStageLogs(gateway, config.aws.apiGatewayLogs);
  }
}

/** Each cdk-nag finding this design accepts on purpose, with the reason next to it. */
function acknowledgeFindings(gateway: SwitchyardApi): void {
  const ack = (scope: Construct, id: string, reason: string) =>
    Validations.of(scope).acknowledge({ id, reason });
  ack(
    gateway,
    'AwsSolutions-APIG2',
    'The gateway validates every body itself (zod) and answers 400 naming the field, in the OpenAI envelope that clients expect.',
  );
  ack(
    gateway,
    'AwsSolutions-APIG4',
    'Callers authenticate in the app with hashed bearer keys (Authorization: Bearer), the scheme OpenAI clients already send.',
  );
  ack(
    gateway,
    'AwsSolutions-COG4',
    'No Cognito: callers are services using OpenAI clients with bearer keys, checked in the app.',
  );
  ack(
    gateway,
    'AwsSolutions-APIG3',
    'WAF is left to the operator (cost); stage throttling bounds the request rate.',
  );
}
