import { AD_HOC_PREFIX, adHocId } from '../catalog/ad-hoc-chains.js';
import type { Catalog } from '../catalog/catalog.js';
import { echoable } from '../chat/request-bounds.js';
import type { Target, UnknownTarget } from './target.js';

export { AD_HOC_PREFIX } from '../catalog/ad-hoc-chains.js';

/** What resolving a target needs from the gateway. */
export interface TargetLookup {
  catalog: Catalog;
  /** True for a configured pipeline, or one only an environment override names. */
  isPipeline(name: string): boolean;
  /** The pipeline's effective chain; undefined when no source resolves to a model. */
  pipelineTarget(pipeline: string): Promise<Target | undefined>;
  /** A caller-supplied name, shortened for an error message. */
  echo(name: string): string;
}

/**
 * Which chain a request runs on: the pipeline in `x-switchyard-pipeline` if given, else `model`
 * as a pipeline name, else `model` as an ad-hoc chain.
 */
export async function resolveTarget(
  lookup: TargetLookup,
  model: string | undefined,
  headerPipeline: string | undefined,
): Promise<Target | UnknownTarget> {
  const { isPipeline, pipelineTarget, echo } = lookup;
  if (headerPipeline !== undefined) {
    const target = isPipeline(headerPipeline) ? await pipelineTarget(headerPipeline) : undefined;
    return (
      target ?? {
        kind: 'unknown',
        param: 'x-switchyard-pipeline',
        message: `unknown pipeline '${echo(headerPipeline)}'`,
      }
    );
  }
  if (model === undefined || model.trim() === '') {
    return {
      kind: 'unknown',
      param: 'model',
      message: 'name a pipeline in `model` or in x-switchyard-pipeline',
    };
  }
  if (isPipeline(model)) {
    const target = await pipelineTarget(model);
    if (target) return target;
    return {
      kind: 'unknown',
      param: 'model',
      message: `pipeline '${echo(model)}' has no chain that resolves to a model`,
    };
  }
  return adHocTarget(lookup, model);
}

/** `model` read as a chain; a stored ad-hoc pipeline id (a job's `chain:(a|b),c`) names its chain again. */
function adHocTarget({ catalog, echo }: TargetLookup, model: string): Target | UnknownTarget {
  const chainText = model.startsWith(AD_HOC_PREFIX) ? model.slice(AD_HOC_PREFIX.length) : model;
  const parsed = catalog.parse(chainText);
  if (parsed.tiers.length === 0) {
    const why = parsed.warnings.map((w) => w.message).join('; ');
    return {
      kind: 'unknown',
      param: 'model',
      message: `unknown pipeline or model '${echo(model)}'${why ? ` (${echoable(why, 500)})` : ''}`,
    };
  }
  // `chain:` keeps an ad-hoc chain apart from any pipeline that shares its text; its breakers are
  // the shared `adhoc` pipeline's (stateScope), so distinct chains add no state.
  const id = adHocId(parsed.tiers);
  return {
    kind: 'chain',
    pipeline: id,
    source: 'request',
    chain: chainText,
    tiers: parsed.tiers,
    warnings: parsed.warnings,
    policy: catalog.policy(id),
  };
}
