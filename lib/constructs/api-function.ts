import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { addAdotTracing } from './adot-tracing.js';
import { BundledFunction } from './bundled-function.js';
import type { JobQueues } from './job-queues.js';
import type { ManagedInstances } from './managed-instances.js';
import { grantRouting } from './routing-grants.js';

export interface ApiFunctionProps {
  breakerTable: ITable;
  /** The caller keys (hashed): the API reads one item per presented key, nothing else. */
  callerKeysTable: ITable;
  ssmPrefix: string;
  configFile: string;
  /** The deployed config: its provider keys and Bedrock models are exactly what the role may use. */
  config: SwitchyardConfig;
  timeoutSeconds: number;
  /** Concurrent executions reserved for the API (taken out of the account's unreserved pool). Default: none. */
  reservedConcurrency?: number | undefined;
  /** For `POST /v1/jobs`: the jobs table and the job queue. */
  jobs: { table: ITable; queues: JobQueues };
  /** Memory in MB (`aws.memoryMb.api`, its default filled by `deploySettings`). */
  memoryMb: number;
  /** The capacity provider to run on (`aws.compute: "managed-instances"`). Default: on-demand. */
  managedInstances?: ManagedInstances | undefined;
}

/**
 * The operator console (`statusPage.console`) writes the chain overrides and reads their history:
 * `<prefix>/chains/*` only, never the caller or provider keys beside them.
 */
function grantOverrideWrites(fn: BundledFunction, ssmPrefix: string): void {
  const chains = fn.parameterArn(`${ssmPrefix.replace(/\/+$/, '')}/chains/*`);
  fn.allow(
    'OperatorConsoleWritesChainOverrides',
    ['ssm:PutParameter', 'ssm:DeleteParameter', 'ssm:GetParameterHistory'],
    [chains],
  );
  fn.acknowledgeWildcard(chains, 'the operator chain overrides, one parameter per pipeline');
}

/**
 * The API Lambda: the same HTTP app as `switchyard serve`. It may read the parameters under its
 * prefix (chain overrides; caller keys not yet migrated) and its provider keys, read single caller
 * keys from their table, read and write the breaker table, and create jobs (jobs table + job queue).
 */
export function createApiFunction(scope: Construct, id: string, props: ApiFunctionProps): BundledFunction {
  const fn = new BundledFunction(scope, id, {
    handlerFile: 'api.ts',
    configFile: props.configFile,
    timeoutSeconds: props.timeoutSeconds,
    memorySize: props.memoryMb,
    reservedConcurrentExecutions: props.reservedConcurrency,
    ...(props.managedInstances
      ? { functionId: 'ManagedHandler', versionScaling: props.managedInstances.versionScaling }
      : {}),
    environment: {
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: props.breakerTable.tableName,
      SWITCHYARD_SSM_PREFIX: props.ssmPrefix,
      SWITCHYARD_KEYS_TABLE: props.callerKeysTable.tableName,
      SWITCHYARD_JOBS_TABLE: props.jobs.table.tableName,
      SWITCHYARD_JOB_QUEUE_URL: props.jobs.queues.queue.queueUrl,
    },
  });
  grantRouting(fn, {
    ssmPrefix: props.ssmPrefix,
    breakerTable: props.breakerTable,
    config: props.config,
  });
  // One GetItem per presented key (and the table's meta item): never a write, never a Scan.
  fn.allow('ReadCallerKeys', ['dynamodb:GetItem'], [props.callerKeysTable.tableArn]);
  // BatchGetItem: a key's job quota item is pruned of finished jobs by reading them in one batch.
  fn.allow(
    'CreateJobs',
    ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
    [props.jobs.table.tableArn],
  );
  fn.allow('EnqueueJobs', ['sqs:SendMessage'], [props.jobs.queues.queue.queueArn]);
  if (props.config.statusPage.console) grantOverrideWrites(fn, props.ssmPrefix);
  addAdotTracing(fn, props.config.aws.tracing);
  props.managedInstances?.addFunction(fn.fn);
  return fn;
}
