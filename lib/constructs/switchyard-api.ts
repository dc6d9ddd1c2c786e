import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The API's one stage: its URLs are `https://<api>.execute-api.<region>.amazonaws.com/prod/...`. */
export const API_STAGE_NAME = 'prod';

export interface SwitchyardApiProps {
  handler: IFunction;
  /**
   * API Gateway's integration timeout in s: the longest a request, or a committed stream, runs
   * (REST response streaming allows up to 900).
   */
  integrationTimeoutSeconds: number;
  /** Requests per second the stage accepts before API Gateway answers 429 itself. */
  rateLimit: number;
  /** Requests the stage accepts in a burst. */
  burstLimit: number;
  /**
   * Access logs and error-level execution logs (`aws.apiGatewayLogs`): only where the account's
   * API Gateway CloudWatch role is set, or the stage fails to deploy. Default false.
   */
  logs?: boolean;
}

/**
 * A REST API whose every path, the root included, goes to the API Lambda (the app answers unknown
 * paths with 404 in the OpenAI envelope). REST (not HTTP API) because it can stream a Lambda's
 * response (`ResponseTransferMode.STREAM`), so `stream: true` reaches the caller chunk by chunk
 * through the same endpoint, for up to 15 minutes; stage throttling comes with it, and access logs
 * where the account allows them (`logs`).
 */
export class SwitchyardApi extends Construct {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: SwitchyardApiProps) {
    super(scope, id);
    const logging = props.logs
      ? {
          accessLogDestination: new LogGroupLogDestination(
            new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH }),
          ),
          accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
          loggingLevel: MethodLoggingLevel.ERROR,
        }
      : {};
    const integration = new LambdaIntegration(props.handler, {
      proxy: true,
      responseTransferMode: ResponseTransferMode.STREAM,
      timeout: Duration.seconds(props.integrationTimeoutSeconds),
    });
    this.api = new RestApi(this, 'RestApi', {
      // API Gateway's metrics are keyed by this name: a second stack must not share it.
      restApiName: Stack.of(this).stackName,
      description: 'Switchyard LLM fallback gateway (OpenAI-compatible)',
      endpointTypes: [EndpointType.REGIONAL],
      // The account's API Gateway logging role is one setting shared by every API of the account
      // and region: another team's stack may own it, so this stack never creates or replaces it.
      cloudWatchRole: false,
      // The root's `ANY /` (which `addProxy` adds) goes to the app too, not to an empty MOCK.
      defaultIntegration: integration,
      deployOptions: {
        stageName: API_STAGE_NAME,
        ...logging,
        dataTraceEnabled: false, // request bodies hold prompts: never log them
        throttlingRateLimit: props.rateLimit,
        throttlingBurstLimit: props.burstLimit,
      },
    });
    this.api.root.addProxy({ anyMethod: true });
  }
}

/**
 * Without `aws.apiGatewayLogs` the stage has no access or execution logs, on purpose: they need the
 * account-wide API Gateway role, which this stack leaves to the operator. The Lambda logs every
 * request and attempt either way.
 */
export function acknowledgeStageLogs(gateway: SwitchyardApi, logs: boolean): void {
  if (logs) return;
  const reason =
    'Stage logs need the account-wide API Gateway CloudWatch role, which the stack leaves alone; set it once and turn on aws.apiGatewayLogs (docs/operations.md#api-gateway-logs). The Lambda logs every request meanwhile.';
  for (const id of ['AwsSolutions-APIG1', 'AwsSolutions-APIG6'])
    Validations.of(gateway).acknowledge({ id, reason });
}
