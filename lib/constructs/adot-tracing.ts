import { Stack } from 'aws-cdk-lib';
import { type CfnFunction, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { AwsConfig } from '../../lambda/core/catalog/aws-config-schema.js';
import type { BundledFunction } from './bundled-function.js';

/**
 * With `aws.tracing.adotLayerArn`: the ADOT layer on the function, its start-up script, traces
 * switched on (`OTEL_TRACES_EXPORTER=otlp`, docs/operations.md#traces-on-aws) and X-Ray active
 * tracing, where the layer's default collector sends spans. Without it, nothing changes.
 */
export function addAdotTracing(fn: BundledFunction, tracing: AwsConfig['tracing']): void {
  if (tracing.adotLayerArn === undefined) return;
  fn.fn.addLayers(LayerVersion.fromLayerVersionArn(fn, 'AdotLayer', tracing.adotLayerArn));
  fn.fn.addEnvironment('AWS_LAMBDA_EXEC_WRAPPER', tracing.execWrapper);
  fn.fn.addEnvironment('OTEL_TRACES_EXPORTER', 'otlp');
  fn.fn.addEnvironment('OTEL_SERVICE_NAME', Stack.of(fn).stackName);
  if (tracing.collectorConfigUri !== undefined) {
    fn.fn.addEnvironment('OPENTELEMETRY_COLLECTOR_CONFIG_URI', tracing.collectorConfigUri);
  }
  (fn.fn.node.defaultChild as CfnFunction).tracingConfig = { mode: 'Active' };
  // X-Ray has no resource-level permissions for sending segments.
  fn.allow('SendTraces', ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], ['*']);
  fn.acknowledgeWildcard('*', 'X-Ray, which has no resource-level permissions for sending traces');
}
