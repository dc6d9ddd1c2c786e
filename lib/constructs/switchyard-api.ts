import { Duration, Stack } from 'aws-cdk-lib';
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
}

/**
 * A REST API whose every path, the root included, goes to the API Lambda (the app answers unknown
 * paths with 404 in the OpenAI envelope). REST (not HTTP API) because it can stream a Lambda's
 * response (`ResponseTransferMode.STREAM`), so `stream: true` reaches the caller chunk by chunk
 * through the same endpoint, for up to 15 minutes; access logs and stage throttling come with it.
 */
export class SwitchyardApi extends Construct {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: SwitchyardApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
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
      cloudWatchRole: true,
      // The root's `ANY /` (which `addProxy` adds) goes to the app too, not to an empty MOCK.
      defaultIntegration: integration,
      deployOptions: {
        stageName: 'prod',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false, // request bodies hold prompts: never log them
        throttlingRateLimit: props.rateLimit,
        throttlingBurstLimit: props.burstLimit,
      },
    });
    this.api.root.addProxy({ anyMethod: true });
  }
}
