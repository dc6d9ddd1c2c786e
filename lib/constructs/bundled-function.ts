import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { isSsmName } from '../../lambda/aws/provider-keys.js';
import { LAMBDA_BUNDLE, SOURCE_MAP_ENVIRONMENT } from '../lambda-bundle.js';
import { metricNamespaceFor, stageOf } from '../stage-names.js';
import { lambdaBundleCode } from './lambda-bundle-code.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BundledFunctionProps {
  /** Handler file under `lambda/handlers/`, e.g. `api.ts`. */
  handlerFile: string;
  /** The config file bundled next to the handler (validated already). */
  configFile: string;
  timeoutSeconds: number;
  environment: Record<string, string>;
  /** Memory in MB. Default 1024: more memory is more CPU, and cold starts are shorter. */
  memorySize?: number;
  /**
   * Construct id of the function (default `Handler`). A different id is a different function:
   * the API function on Managed Instances is `ManagedHandler`, so switching `aws.compute`
   * replaces the function instead of updating it in place (a capacity provider cannot be removed
   * from a function).
   */
  functionId?: string;
  /** Execution environments of each published version (Managed Instances only). Default: none. */
  versionScaling?: { minExecutionEnvironments: number; maxExecutionEnvironments?: number };
  /** Concurrent executions reserved for (and capping) this function. Default: none. */
  reservedConcurrentExecutions?: number | undefined;
  /**
   * Ship a source map and run with `--enable-source-maps`. Default `LAMBDA_BUNDLE.sourceMap`;
   * `bench/cold-start` builds the other choice to show what it costs.
   */
  sourceMap?: boolean;
  /**
   * Split lazily imported code into chunks loaded on first use. Default `LAMBDA_BUNDLE.splitting`;
   * `bench/cold-start` builds the other choice (one eager file) to show what it is worth.
   */
  splitting?: boolean;
  /** Where an asynchronous invocation goes after Lambda's retries failed (the role may send there). */
  asyncDeadLetterQueue?: IQueue | undefined;
}

/**
 * One of Switchyard's Lambda functions: local esbuild (`LAMBDA_BUNDLE`: ESM, minified, names
 * kept, no source map, the AWS SDK bundled in, lazily imported code split into chunks), Node.js
 * 24 on arm64, the config bundled beside
 * the handler, its own log group, and a role that starts with nothing but writing those logs.
 * Every other permission is granted by name through the methods.
 */
export class BundledFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const logStreams = `${this.logGroup.logGroupArn}:*`;
    this.allow('WriteOwnLogs', ['logs:CreateLogStream', 'logs:PutLogEvents'], [logStreams]);
    this.acknowledgeWildcard(logStreams, 'log streams of its own log group');

    const sourceMap = props.sourceMap ?? LAMBDA_BUNDLE.sourceMap;
    this.fn = new LambdaFunction(this, props.functionId ?? 'Handler', {
      code: lambdaBundleCode({
        root: ROOT,
        handlerFile: props.handlerFile,
        configFile: props.configFile,
        sourceMap,
        splitting: props.splitting ?? LAMBDA_BUNDLE.splitting,
      }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      deadLetterQueue: props.asyncDeadLetterQueue,
      // A published version outlives the deploy that replaced it, so the alias can go back to it at once.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN, ...props.versionScaling },
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        SWITCHYARD_CONFIG: 'switchyard.config.json',
        POWERTOOLS_SERVICE_NAME: 'switchyard',
        // Per stage, so that stages sharing an account and region never share a metric.
        POWERTOOLS_METRICS_NAMESPACE: metricNamespaceFor(stageOf(this)),
        ...(sourceMap ? SOURCE_MAP_ENVIRONMENT : {}),
        ...props.environment,
      },
    });
  }

  /** Grants exactly these actions on exactly these resources (under these IAM conditions, if any). */
  allow(sid: string, actions: string[], resources: string[], conditions?: Record<string, unknown>): void {
    if (resources.length === 0) return;
    this.role.addToPolicy(new PolicyStatement({ sid, actions, resources, conditions }));
  }

  /** ARN of an SSM parameter by its name (`/switchyard/chains`). */
  parameterArn(name: string): string {
    return Stack.of(this).formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: name.replace(/^\//, ''),
    });
  }

  /** Read access to named secrets: `/…` names are SSM SecureStrings, others Secrets Manager secrets. */
  allowSecrets(sid: string, names: readonly string[]): void {
    this.allow(
      `${sid}InSsm`,
      ['ssm:GetParameter', 'ssm:GetParameters'],
      names.filter(isSsmName).map((n) => this.parameterArn(n)),
    );
    // Secrets Manager appends six random characters to every secret's ARN.
    const secretArns = names
      .filter((n) => !isSsmName(n))
      .map((name) =>
        Stack.of(this).formatArn({
          service: 'secretsmanager',
          resource: 'secret',
          resourceName: `${name}-??????`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      );
    this.allow(`${sid}InSecretsManager`, ['secretsmanager:GetSecretValue'], secretArns);
    for (const arn of secretArns)
      this.acknowledgeWildcard(arn, 'the random suffix Secrets Manager adds to a secret name');
  }

  /** A wildcard in one resource, acknowledged for cdk-nag with the reason it is there. */
  acknowledgeWildcard(resource: string, why: string): void {
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagResource(Stack.of(this), resource)}]`,
      reason: `Wildcard limited to ${why}; every action is named.`,
    });
  }
}

/** How cdk-nag prints a resource in a finding: the resolved ARN with `{Ref: X}` written as `<X>`. */
function nagResource(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object') {
      const node = value as Record<string, unknown>;
      if (typeof node.Ref === 'string') return `<${node.Ref}>`;
      const join = node['Fn::Join'] as [string, unknown[]] | undefined;
      if (join) return join[1].map(render).join(join[0]);
      const getAtt = node['Fn::GetAtt'] as [string, string] | undefined;
      if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
    }
    return String(value);
  };
  return render(stack.resolve(arn));
}
