import { Duration } from 'aws-cdk-lib';
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

/** API Gateway's classic integration timeout: every pipeline deadline must end before it. */
export const INTEGRATION_TIMEOUT_SECONDS = 29;

export interface SwitchyardApiProps {
  handler: IFunction;
  /** Requests per second the stage accepts before API Gateway answers 429 itself. Default 500. */
  rateLimit?: number;
}

/**
 * A REST API with one greedy proxy route onto the API Lambda. REST (not HTTP API) because it can
 * stream a Lambda's response (`ResponseTransferMode.STREAM`), so `stream: true` reaches the caller
 * chunk by chunk through the same endpoint; access logs and stage throttling come with it.
 */
export class SwitchyardApi extends Construct {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: SwitchyardApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    const integration = new LambdaIntegration(props.handler, {
      proxy: true,
      responseTransferMode: ResponseTransferMode.STREAM,
      timeout: Duration.seconds(INTEGRATION_TIMEOUT_SECONDS),
    });
    this.api = new RestApi(this, 'RestApi', {
      restApiName: 'switchyard',
      description: 'Switchyard LLM fallback gateway (OpenAI-compatible)',
      endpointTypes: [EndpointType.REGIONAL],
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'prod',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false, // request bodies hold prompts: never log them
        throttlingRateLimit: props.rateLimit ?? 500,
        throttlingBurstLimit: (props.rateLimit ?? 500) * 2,
      },
    });
    this.api.root.addProxy({ defaultIntegration: integration, anyMethod: true });
  }
}
