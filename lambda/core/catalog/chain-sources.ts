import type { DslWarning, Tier } from '../dsl/types.js';
import { type ChainUse, chainUse } from '../embeddings/embedding-space.js';
import type { Logger } from '../logger.js';
import type { Catalog } from './catalog.js';
import { type CanaryOverride, cachedOverrideReader, overrideAt } from './chain-override.js';

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

/** A canary chain over the stable one (docs/design.md#timed-overrides-and-canaries), resolved. */
export interface CanaryChain {
  chain: string;
  tiers: Tier[];
  warnings: DslWarning[];
  /** Share of the pipeline's requests, in %. */
  percent: number;
  /** When it started, ISO 8601. */
  since: string;
  /** Each container stops it by itself when it fails (docs/design.md#timed-overrides-and-canaries). */
  autoAbort: boolean;
}

/** The chain a pipeline runs on right now, and where it came from. */
export interface EffectiveChain {
  pipeline: string;
  source: ChainSourceName;
  chain: string;
  tiers: Tier[];
  warnings: DslWarning[];
  /** Ms since epoch when this chain (a timed override) stops applying; absent for a steady chain. */
  until?: number | undefined;
  /** A pin: breaker openings of this chain's routes are ignored until `until`. */
  pinned?: boolean | undefined;
  /** A canary that takes a share of the requests; `chain` is then the stable chain. */
  canary?: CanaryChain | undefined;
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

/** Override values as read on the request path: each distinct value JSON-parsed and checked once. */
const readOverrideValue = cachedOverrideReader();

/**
 * The first source that is set and resolves to at least one model wins. A source that is set but
 * resolves to nothing, or that fails to answer, is logged as an error and skipped, so a typo in an
 * override never takes a pipeline down. A value may be an override document
 * (docs/design.md#timed-overrides-and-canaries): a timed override applies strictly before its
 * `until` (ms, compared with `now`) and is skipped from then on; a canary without a chain of its own
 * runs over the next source's chain. Undefined when no source yields a model.
 */
export async function resolveEffectiveChain(
  pipeline: string,
  sources: readonly ChainSource[],
  catalog: Catalog,
  log: Logger,
  now: number,
): Promise<EffectiveChain | undefined> {
  let canary: CanaryOverride | undefined;
  for (const source of sources) {
    const value = await readSource(source, pipeline, log);
    if (value === undefined) continue;
    const reading = readOverrideValue(value);
    if (!reading.ok) {
      log.error('override cannot be read; source skipped', {
        pipeline,
        source: source.name,
        problem: reading.problem,
      });
      continue;
    }
    const inForce = overrideAt(reading.document, now);
    canary = inForce.canary ?? canary;
    if (inForce.chain === undefined) continue;
    const parsed = parsedChain(catalog, log, pipeline, source.name, inForce.chain);
    if (!parsed) continue;
    return {
      pipeline,
      source: source.name,
      chain: inForce.chain,
      ...parsed,
      ...(inForce.until !== undefined ? { until: inForce.until, pinned: inForce.pinned } : {}),
      ...(canary ? canaryChain(catalog, log, pipeline, source.name, canary) : {}),
    };
  }
  return undefined;
}

async function readSource(source: ChainSource, pipeline: string, log: Logger): Promise<string | undefined> {
  try {
    return await source.read(pipeline);
  } catch (error) {
    log.error('chain source failed; skipped', {
      pipeline,
      source: source.name,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/** The chain's tiers and warnings; undefined (logged) when it resolves to no model or serves something else than the pipeline. */
function parsedChain(
  catalog: Catalog,
  log: Logger,
  pipeline: string,
  source: ChainSourceName,
  chain: string,
): { tiers: Tier[]; warnings: DslWarning[] } | undefined {
  const parsed = catalog.parse(chain);
  if (parsed.tiers.length === 0) {
    log.error('chain resolves to no model; source skipped', {
      pipeline,
      source,
      chain,
      warnings: parsed.warnings.map((w) => w.message),
    });
    return undefined;
  }
  // The config chain was checked against itself at load; only an override can serve something else.
  const unsuited = source === 'config' ? undefined : useMismatch(pipeline, parsed.tiers, catalog);
  if (unsuited !== undefined) {
    log.error('chain does not serve what the pipeline serves; source skipped', {
      pipeline,
      source,
      chain,
      problem: unsuited,
    });
    return undefined;
  }
  if (parsed.warnings.length > 0) {
    log.warn('chain has warnings', { pipeline, source, warnings: parsed.warnings.map((w) => w.message) });
  }
  return { tiers: parsed.tiers, warnings: parsed.warnings };
}

/** A canary whose chain resolves to no model is left out: every request stays on the stable chain. */
function canaryChain(
  catalog: Catalog,
  log: Logger,
  pipeline: string,
  source: ChainSourceName,
  canary: CanaryOverride,
): { canary: CanaryChain } | undefined {
  const parsed = parsedChain(catalog, log, pipeline, source, canary.chain);
  if (!parsed) return undefined;
  const { percent, since, autoAbort } = canary;
  return { canary: { chain: canary.chain, ...parsed, percent, since, autoAbort } };
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
