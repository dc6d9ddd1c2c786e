import { Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { createCatalog } from '../lambda/core/catalog/catalog.js';
import type { SwitchyardConfig } from '../lambda/core/catalog/config-schema.js';
import { createApiFunction } from './constructs/api-function.js';
import { BreakerTable } from './constructs/breaker-table.js';
import { ChainParameters } from './constructs/chain-parameters.js';
import { JobQueues } from './constructs/job-queues.js';
import { Operations } from './constructs/operations.js';
import { ScheduledJobs } from './constructs/scheduled-jobs.js';
import { INTEGRATION_TIMEOUT_SECONDS, SwitchyardApi } from './constructs/switchyard-api.js';

export interface SwitchyardStackProps extends StackProps {
  config: SwitchyardConfig;
  /** The config file bundled with the handler (validated already). */
  configFile: string;
}

/**
 * What only a deployment can get wrong: every pipeline's deadline must end inside API Gateway's
 * integration timeout (with a second to answer), and a key named only by `apiKeyEnv` exists only
 * on a laptop, so every keyed provider needs an `apiKeySecret` in AWS.
 */
function checkDeployable(config: SwitchyardConfig): void {
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.type === 'openai' && provider.apiKeyEnv && !provider.apiKeySecret) {
      throw new Error(
        `providers.${name}: apiKeyEnv (${provider.apiKeyEnv}) only works locally; add apiKeySecret (an SSM SecureString /path or a Secrets Manager name) to deploy`,
      );
    }
  }
  const catalog = createCatalog(config);
  const limitMs = (INTEGRATION_TIMEOUT_SECONDS - 1) * 1000;
  for (const pipeline of ['(ad-hoc chains)', ...catalog.pipelines]) {
    const { deadlineMs } = catalog.policy(pipeline).route;
    if (deadlineMs > limitMs) {
      throw new Error(
        `pipeline ${pipeline}: deadlineMs ${deadlineMs} does not fit API Gateway's ${INTEGRATION_TIMEOUT_SECONDS} s integration timeout; use at most ${limitMs}`,
      );
    }
  }
}

/** One deployment of Switchyard: the API, its Lambda, the breaker table, the chain parameters, alarms. */
export class SwitchyardStack extends Stack {
  constructor(scope: Construct, id: string, props: SwitchyardStackProps) {
    super(scope, id, props);
    const { config } = props;
    checkDeployable(config);
    const ssmPrefix = config.aws?.ssmPrefix ?? '/switchyard';

    const breakers = new BreakerTable(this, 'BreakerTable');
    new ChainParameters(this, 'ChainParameters', {
      ssmPrefix,
      chains: Object.fromEntries(Object.entries(config.pipelines).map(([name, p]) => [name, p.chain])),
    });
    const workerTimeoutSeconds = 120;
    const queues = new JobQueues(this, 'Jobs', {
      maxReceiveCount: config.jobs?.maxReceiveCount ?? 3,
      retentionDays: config.jobs?.retentionDays ?? 14,
      workerTimeoutSeconds,
    });
    const api = createApiFunction(this, 'ApiFunction', {
      breakerTable: breakers.table,
      ssmPrefix,
      configFile: props.configFile,
      config,
      timeoutSeconds: INTEGRATION_TIMEOUT_SECONDS + 1,
      jobs: { table: queues.table, queues },
    });
    new ScheduledJobs(this, 'ScheduledJobs', {
      schedules: config.schedules ?? {},
      queues,
      breakerTable: breakers.table,
      ssmPrefix,
      configFile: props.configFile,
      config,
      workerTimeoutSeconds,
    });
    const gateway = new SwitchyardApi(this, 'Api', { handler: api.fn });
    new Operations(this, 'Operations', { handler: api.fn, deadLetters: queues.deadLetters });

    acknowledgeFindings(this, gateway);
  }
}

/** Each cdk-nag finding this design accepts on purpose, with the reason next to it. */
function acknowledgeFindings(stack: Stack, gateway: SwitchyardApi): void {
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
  ack(
    gateway,
    'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    "API Gateway's account-level CloudWatch role uses the AWS managed push-to-logs policy, the documented way to enable stage logs.",
  );
  ack(
    stack,
    'AwsSolutions-L1',
    'Node.js 22 on purpose: the code is built and tested on the Node 22 target; the runtime moves with the toolchain.',
  );
}
