/**
 * The one rule for the dimension values of every metric (CloudWatch EMF dimensions in AWS,
 * Prometheus labels locally): each value comes from the config or a fixed vocabulary, never from
 * what a caller sends. CloudWatch bills every distinct (metric, dimension values) as a custom
 * metric ($0.30 a month each), and a Prometheus series lives in memory until the process ends, so
 * a value a caller could vary (an ad-hoc chain's text, its weights, a spelling of a pipeline name)
 * would grow the bill or the memory without bound.
 */
import { isAdHoc, stateScope, stateScopeIn } from '../catalog/ad-hoc-chains.js';
import { ROUTE_SEPARATOR } from '../catalog/catalog.js';
import type { SwitchyardConfig } from '../catalog/config-schema.js';

/** The one dimension value every ad-hoc chain's metrics share (`chain:…` and the reserved `adhoc` alike). */
export const AD_HOC_DIMENSION = '(ad-hoc)';

/** What stands in for a value outside the dimension's bounded set (never expected: a defect made visible, not a new metric). */
export const OTHER_DIMENSION = '(other)';

/** The values a dimension of a fixed vocabulary may take. */
const VOCABULARIES = {
  /** Admission limit types. */
  kind: ['requests', 'tokens', 'spend'],
  /** What a limit does when its store fails. */
  policy: ['open', 'closed'],
  /** Whose daily spend cap (never the key's name). */
  scope: ['key', 'pipeline'],
  /** Breaker store calls (`BreakerEvents.onStoreError`). */
  operation: ['read', 'record', 'open', 'probe', 'ramp', 'read-routes', 'cool-route', 'probe-route'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The shape of a daily spend cap's id (`budgetCapId` in `lambda/aws/budget-cap.ts`): a pipeline's
 * cap by its name, the unnamed keys' shared cap, or a named key's cap by 12 hex digits of a hash —
 * only caps the admission settings list, so the operator's number, and never a key's name.
 */
const CAP_ID = /^(pipeline:[A-Za-z0-9_.-]{1,128}|key:\(default\)|key:[0-9a-f]{12})$/;

/** Every dimension a metric may carry; anything else does not type-check. */
export type DimensionName = 'pipeline' | 'model' | 'cap' | keyof typeof VOCABULARIES;

/** A metric's dimensions, as raw values (the rule is applied by {@link MetricDimensions.bound}). */
export type Dimensions = Partial<Record<DimensionName, string>>;

/** The rule, bound to one config. */
export interface MetricDimensions {
  /** The dimension value of a pipeline: its state scope (a configured name, `env:MODEL_X`) or {@link AD_HOC_DIMENSION}. */
  pipeline(pipeline: string): string;
  /** The dimension value of a model key or route key (`model~provider`): itself when configured, else {@link OTHER_DIMENSION}. */
  model(model: string): string;
  /** Every dimension of one metric through its rule. */
  bound(dimensions: Dimensions): Record<string, string>;
}

/** The pipeline dimension alone, for a caller that has no model list (the rule is the same). */
export function pipelineDimension(
  pipeline: string,
  scopeOf: (pipeline: string) => string = stateScope,
): string {
  return isAdHoc(pipeline) ? AD_HOC_DIMENSION : scopeOf(pipeline);
}

/**
 * `scopeOf`: the name a pipeline's state is kept under (default `stateScope`; the gateway's
 * `stateScopeIn(configured)` maps a pipeline only an override names to its variable, so every
 * spelling of it is one value). `isModel`: whether a model key is configured (a route key is
 * checked by its model part). Default: every model counts as configured.
 */
export function createMetricDimensions(
  options: { scopeOf?: (pipeline: string) => string; isModel?: (modelKey: string) => boolean } = {},
): MetricDimensions {
  const scopeOf = options.scopeOf ?? stateScope;
  const isModel = options.isModel ?? (() => true);
  const pipeline = (name: string) => pipelineDimension(name, scopeOf);
  const model = (key: string) => (isModel(key.split(ROUTE_SEPARATOR)[0] ?? key) ? key : OTHER_DIMENSION);
  const vocabulary = (name: keyof typeof VOCABULARIES, value: string) =>
    (VOCABULARIES[name] as readonly string[]).includes(value) ? value : OTHER_DIMENSION;
  return {
    pipeline,
    model,
    bound(dimensions) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(dimensions) as [DimensionName, string | undefined][]) {
        if (value === undefined) continue;
        out[name] =
          name === 'pipeline'
            ? pipeline(value)
            : name === 'model'
              ? model(value)
              : name === 'cap'
                ? CAP_ID.test(value)
                  ? value
                  : OTHER_DIMENSION
                : vocabulary(name, value);
      }
      return out;
    },
  };
}

/**
 * The rule for one config: configured pipelines by name, a pipeline only an override names by its
 * variable, every ad-hoc chain as `(ad-hoc)`, configured models (and their routes) only.
 */
export function configMetricDimensions(
  config: Pick<SwitchyardConfig, 'pipelines' | 'models'>,
): MetricDimensions {
  return createMetricDimensions({
    scopeOf: stateScopeIn((pipeline) => Object.hasOwn(config.pipelines, pipeline)),
    isModel: (key) => Object.hasOwn(config.models, key),
  });
}
