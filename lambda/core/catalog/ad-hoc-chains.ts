/**
 * Ad-hoc chains: a chain written in a request's `model` instead of a pipeline name
 * (docs/concepts.md#ad-hoc-chains). Their text is the caller's, so nothing per distinct chain may be
 * kept in state shared with the configured pipelines: they all share one reserved pipeline name.
 */

/** Prefix of the pipeline id of an ad-hoc chain (`chain:(a|b),c`) in the ledger, jobs and traces. */
export const AD_HOC_PREFIX = 'chain:';

/**
 * The reserved pipeline name every ad-hoc chain shares: its breakers, coolings and recovery are
 * kept per (`adhoc`, model route), and `admission.pipelines.adhoc` limits them all together. A
 * config may not define a pipeline of this name.
 */
export const AD_HOC_PIPELINE = 'adhoc';

/** True for an ad-hoc chain's pipeline id (`chain:…`) or the shared name `adhoc` itself. */
export function isAdHoc(pipeline: string): boolean {
  return pipeline === AD_HOC_PIPELINE || pipeline.startsWith(AD_HOC_PREFIX);
}

/**
 * The name a pipeline's shared state is kept under (breakers, admission counters, per-pipeline
 * totals): itself for a pipeline, {@link AD_HOC_PIPELINE} for every ad-hoc chain. Callers cannot
 * create new names this way, so nothing they send can crowd a configured pipeline out of a
 * bounded map.
 */
export function stateScope(pipeline: string): string {
  return isAdHoc(pipeline) ? AD_HOC_PIPELINE : pipeline;
}
