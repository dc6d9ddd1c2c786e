import { Lazy, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The stack name of a deployment without a stage: what every deployment before stages had. */
export const BASE_STACK_NAME = 'Switchyard';
/** The metric namespace of a deployment without a stage (`POWERTOOLS_METRICS_NAMESPACE`). */
export const BASE_METRIC_NAMESPACE = 'Switchyard';

/** Context key under which a Switchyard stack records its stage for the constructs inside it. */
const STAGE_CONTEXT = 'switchyard:stage';

/**
 * The stack name (and CDK id) of a stage: `Switchyard`, or `Switchyard-<stage>`. Every named
 * resource (queues, the REST API, the dashboard) derives its name from the stack name, and
 * CloudFormation prefixes every generated name (tables, functions, alarms) with it.
 */
export function stackNameFor(stage: string | undefined): string {
  return stage === undefined ? BASE_STACK_NAME : `${BASE_STACK_NAME}-${stage}`;
}

/**
 * The CloudWatch namespace of a stage's own metrics: `Switchyard`, or `Switchyard/<stage>`, so
 * that one stage's alarms never count another stage's requests in the same account and region.
 */
export function metricNamespaceFor(stage: string | undefined): string {
  return stage === undefined ? BASE_METRIC_NAMESPACE : `${BASE_METRIC_NAMESPACE}/${stage}`;
}

/** Records a stack's stage for {@link stageOf}; called by the stack before it adds any construct. */
export function recordStage(stack: Stack, stage: string | undefined): void {
  if (stage !== undefined) stack.node.setContext(STAGE_CONTEXT, stage);
}

/** The stage of the stack that holds `scope` (undefined: no stage). */
export function stageOf(scope: IConstruct): string | undefined {
  const stage = Stack.of(scope).node.tryGetContext(STAGE_CONTEXT) as unknown;
  return typeof stage === 'string' ? stage : undefined;
}

/**
 * The metric namespace of whichever stack renders the value: a metric built without a scope (the
 * alarm and dashboard helpers) still lands in its stage's namespace.
 */
export function stageMetricNamespace(): string {
  return Lazy.uncachedString({ produce: (context) => metricNamespaceFor(stageOf(context.scope)) });
}
