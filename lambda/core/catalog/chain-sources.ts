import type { DslWarning, Tier } from '../dsl/types.js';
import { type ChainUse, chainUse } from '../embeddings/embedding-space.js';
import type { Logger } from '../logger.js';
import type { Catalog } from './catalog.js';

/** Where a pipeline's chain came from, in precedence order (docs/design.md#chain-sources). */
export type ChainSourceName = 'env' | 'ssm' | 'config';

/** One place a pipeline's chain may be set. `read` resolves undefined when it is not set there. */
export interface ChainSource {
  readonly name: ChainSourceName;
  read(pipeline: string): Promise<string | undefined>;
}

/** Reads `<prefix>/chains/<pipeline>` (the AWS implementation comes with the deployment). */
export interface ChainParameterStore {
  get(pipeline: string): Promise<string | undefined>;
}

/** The chain a pipeline runs on right now, and where it came from. */
export interface EffectiveChain {
  pipeline: string;
  source: ChainSourceName;
  chain: string;
  tiers: Tier[];
  warnings: DslWarning[];
}

/** `comment-filter` → `MODEL_COMMENT_FILTER`: upper-cased, everything outside `[A-Z0-9]` becomes `_`. */
export function envVarName(pipeline: string): string {
  return `MODEL_${pipeline.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The break-glass knob: `MODEL_<PIPELINE>`. The environment is passed in; the core reads no globals. */
export function createEnvChainSource(env: Readonly<Record<string, string | undefined>>): ChainSource {
  return {
    name: 'env',
    read: async (pipeline) => {
      const value = env[envVarName(pipeline)]?.trim();
      return value ? value : undefined;
    },
  };
}

export function createSsmChainSource(store: ChainParameterStore): ChainSource {
  return {
    name: 'ssm',
    read: async (pipeline) => {
      const value = (await store.get(pipeline))?.trim();
      return value ? value : undefined;
    },
  };
}

export function createConfigChainSource(catalog: Catalog): ChainSource {
  return {
    name: 'config',
    read: async (pipeline) =>
      Object.hasOwn(catalog.config.pipelines, pipeline)
        ? catalog.config.pipelines[pipeline]?.chain
        : undefined,
  };
}

/**
 * The first source that is set and resolves to at least one model wins. A source that is set but
 * resolves to nothing, or that fails to answer, is logged as an error and skipped, so a typo in an
 * override never takes a pipeline down. Undefined when no source yields a model.
 */
export async function resolveEffectiveChain(
  pipeline: string,
  sources: readonly ChainSource[],
  catalog: Catalog,
  log: Logger,
): Promise<EffectiveChain | undefined> {
  for (const source of sources) {
    let chain: string | undefined;
    try {
      chain = await source.read(pipeline);
    } catch (error) {
      log.error('chain source failed; skipped', {
        pipeline,
        source: source.name,
        error: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    if (chain === undefined) continue;
    const parsed = catalog.parse(chain);
    if (parsed.tiers.length === 0) {
      log.error('chain resolves to no model; source skipped', {
        pipeline,
        source: source.name,
        chain,
        warnings: parsed.warnings.map((w) => w.message),
      });
      continue;
    }
    const unsuited = useMismatch(pipeline, parsed.tiers, catalog);
    if (unsuited !== undefined) {
      log.error('chain does not serve what the pipeline serves; source skipped', {
        pipeline,
        source: source.name,
        chain,
        problem: unsuited,
      });
      continue;
    }
    if (parsed.warnings.length > 0) {
      log.warn('chain has warnings', {
        pipeline,
        source: source.name,
        warnings: parsed.warnings.map((w) => w.message),
      });
    }
    return { pipeline, source: source.name, chain, tiers: parsed.tiers, warnings: parsed.warnings };
  }
  return undefined;
}

/**
 * Why an override cannot stand in for the pipeline's config chain (docs/concepts.md#embeddings):
 * it mixes embedding spaces or chat and embedding models, or it serves something else than the
 * config chain does (chat for embeddings, another vector size). Undefined when it can.
 */
export function useMismatch(pipeline: string, tiers: readonly Tier[], catalog: Catalog): string | undefined {
  const dimensionsOf = (key: string) => catalog.models.get(key)?.dimensions;
  const use = chainUse(tiers, dimensionsOf);
  if (!use.ok) return use.problem;
  const configured = catalog.config.pipelines[pipeline]?.chain;
  if (configured === undefined) return undefined;
  const own = chainUse(catalog.parse(configured).tiers, dimensionsOf);
  if (!own.ok) return undefined;
  const describe = (u: ChainUse) => (u.kind === 'chat' ? 'chat' : `embeddings of ${u.dimensions} dimensions`);
  return describe(use.use) === describe(own.use)
    ? undefined
    : `serves ${describe(use.use)}, the config chain ${describe(own.use)}`;
}
