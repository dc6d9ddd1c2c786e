import type { Catalog } from '../core/catalog/catalog.js';
import {
  type ChainSource,
  createConfigChainSource,
  createEnvChainSource,
  type EffectiveChain,
  envVarName,
  resolveEffectiveChain,
} from '../core/catalog/chain-sources.js';
import type { Logger } from '../core/logger.js';

/** What the CLI knows about a pipeline's SSM override, read once before resolving. */
export interface OverrideSeen {
  /** `<prefix>/chains/<pipeline>`. */
  parameter: string;
  /** The override's chain, or undefined when the pipeline has none. */
  chain: string | undefined;
  version?: number | undefined;
}

/** The chain that wins, by the gateway's own rule (docs/design.md#chain-sources), and the sources it skipped. */
export interface SourceReport {
  /** Undefined when no source yields a model. */
  effective: EffectiveChain | undefined;
  /** One line per source that was set but skipped, e.g. `ssm: chain resolves to no model; source skipped`. */
  skipped: string[];
}

/**
 * Resolves a pipeline exactly as the gateway does: env (`MODEL_<P>` in `env`) > the SSM override
 * (only when `override` is given, i.e. the command read SSM) > the config. The core resolver
 * runs unchanged, so the CLI can never disagree with the gateway about which source wins.
 */
export async function resolvePipelineSource(
  pipeline: string,
  catalog: Catalog,
  env: NodeJS.ProcessEnv,
  override?: OverrideSeen,
  now: number = Date.now(),
): Promise<SourceReport> {
  const skipped: string[] = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message, fields) => skipped.push(`${String(fields?.source ?? 'source')}: ${message}`),
  };
  const sources: ChainSource[] = [createEnvChainSource(env)];
  if (override) {
    const chain = override.chain?.trim();
    sources.push({ name: 'ssm', read: async () => (chain ? chain : undefined) });
  }
  sources.push(createConfigChainSource(catalog));
  return { effective: await resolveEffectiveChain(pipeline, sources, catalog, log, now), skipped };
}

/**
 * The human words for a source: `env (MODEL_P)`, `ssm: operator override /switchyard/chains/p
 * (version 3)`, `config`. JSON output keeps the bare `env | ssm | config`.
 */
export function describeSource(effective: EffectiveChain, override?: OverrideSeen): string {
  switch (effective.source) {
    case 'env':
      return `env (${envVarName(effective.pipeline)})`;
    case 'ssm': {
      const version = override?.version ? ` (version ${override.version})` : '';
      return `ssm: operator override ${override?.parameter ?? ''}${version}`.trimEnd();
    }
    default:
      return 'config';
  }
}
