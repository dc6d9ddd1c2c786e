import {
  DeleteParameterCommand,
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  paginateGetParameterHistory,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { ssmPrefixSchema } from '../core/catalog/aws-config-schema.js';
import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import { ConfigError, SwitchyardError } from '../core/errors.js';

/** The same characters the config allows in a pipeline name, so a name is one path segment. */
const PIPELINE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** `/switchyard` → `/switchyard/chains`: the folder of the operator overrides, one parameter per pipeline. */
export function chainOverridesPath(ssmPrefix: string): string {
  return `${ssmPrefix.replace(/\/+$/, '')}/chains`;
}

/** `/switchyard`, `comment-filter` → `/switchyard/chains/comment-filter`. */
export function chainParameterName(ssmPrefix: string, pipeline: string): string {
  if (!PIPELINE_NAME.test(pipeline))
    throw new SwitchyardError(`pipeline name '${pipeline}' may contain only letters, digits and - _ .`);
  return `${chainOverridesPath(ssmPrefix)}/${pipeline}`;
}

/** One version of a pipeline's chain parameter, as SSM's own history records it. */
export interface ChainVersion {
  version: number;
  chain: string;
  modified: Date | undefined;
  /** ARN of whoever wrote it (only history knows; undefined from `current`). */
  by: string | undefined;
  description: string | undefined;
}

/** A rollback that cannot be done: no override, nothing earlier, or an unknown version. */
export class RollbackError extends SwitchyardError {
  constructor(message: string) {
    super(message);
    this.name = 'RollbackError';
  }
}

/** What a rollback did: the chain that was current, the version restored, and the version written. */
export interface RollbackResult {
  from: ChainVersion;
  to: ChainVersion;
  version: number;
}

/**
 * The chain overrides in SSM (`<ssmPrefix>/chains/<pipeline>`, type String). SSM's parameter
 * history is the record of every change; a rollback writes an earlier value as a new version, so
 * the record only grows. Reads are not cached here; the Lambda caches them for `chainCacheMs`.
 */
export interface SsmChainStore extends ChainParameterStore {
  readonly ssmPrefix: string;
  parameterName(pipeline: string): string;
  /** The chain, or undefined when the pipeline has no override. */
  get(pipeline: string): Promise<string | undefined>;
  /** The latest version, or undefined when the pipeline has no override. */
  current(pipeline: string): Promise<ChainVersion | undefined>;
  /** Writes a new version (Overwrite, type String) and returns its number. */
  put(pipeline: string, chain: string, description?: string): Promise<number>;
  /**
   * Deletes the override, so the pipeline returns to its config chain. SSM deletes the
   * parameter's history with it. Resolves false when there was no override to delete.
   */
  delete(pipeline: string): Promise<boolean>;
  /** Every version SSM keeps (up to 100), newest first; empty when there is no override. */
  history(pipeline: string): Promise<ChainVersion[]>;
  /**
   * Writes the previous distinct chain (or version `toVersion`'s) as a new version. `check` sees
   * the target first and may throw to refuse it. Throws `RollbackError` when there is nothing to do.
   */
  rollback(
    pipeline: string,
    options?: {
      toVersion?: number | undefined;
      check?: ((target: ChainVersion) => void) | undefined;
      /** The new version's description. Default `rollback of <pipeline> to version <n>`. */
      description?: ((target: ChainVersion) => string) | undefined;
    },
  ): Promise<RollbackResult>;
}

/**
 * The version a rollback restores: `toVersion` if given, else the newest version whose chain
 * differs from the current one. `history` is newest first.
 */
export function pickRollbackTarget(history: readonly ChainVersion[], toVersion?: number): ChainVersion {
  const current = history[0];
  if (!current) throw new RollbackError('no SSM override to roll back');
  if (toVersion !== undefined) {
    const target = history.find((v) => v.version === toVersion);
    if (!target) {
      const kept = history.map((v) => v.version);
      throw new RollbackError(
        `no version ${toVersion} in the history (kept: ${Math.min(...kept)}..${Math.max(...kept)})`,
      );
    }
    if (target.chain === current.chain)
      throw new RollbackError(`version ${toVersion} holds the current chain already`);
    return target;
  }
  const target = history.find((v) => v.chain !== current.chain);
  if (!target) throw new RollbackError('no earlier, different chain in the history');
  return target;
}

export function createSsmChainStore(options: { client: SSMClient; ssmPrefix: string }): SsmChainStore {
  const { client, ssmPrefix } = options;
  const parameterName = (pipeline: string) => chainParameterName(ssmPrefix, pipeline);

  const current = async (pipeline: string): Promise<ChainVersion | undefined> => {
    try {
      const { Parameter: p } = await client.send(new GetParameterCommand({ Name: parameterName(pipeline) }));
      if (p?.Value === undefined) return undefined;
      return {
        version: p.Version ?? 0,
        chain: p.Value,
        modified: p.LastModifiedDate,
        by: undefined,
        description: undefined,
      };
    } catch (error) {
      if (error instanceof ParameterNotFound) return undefined;
      throw error;
    }
  };

  const put = async (pipeline: string, chain: string, description?: string): Promise<number> => {
    const out = await client.send(
      new PutParameterCommand({
        Name: parameterName(pipeline),
        Value: chain,
        Type: 'String',
        Overwrite: true,
        Description: (description ?? `chain of pipeline ${pipeline}`).slice(0, 1024),
      }),
    );
    return out.Version ?? 0;
  };

  const history = async (pipeline: string): Promise<ChainVersion[]> => {
    const versions: ChainVersion[] = [];
    try {
      for await (const page of paginateGetParameterHistory(
        { client },
        { Name: parameterName(pipeline), MaxResults: 50 },
      )) {
        for (const p of page.Parameters ?? []) {
          if (p.Value === undefined) continue;
          versions.push({
            version: p.Version ?? 0,
            chain: p.Value,
            modified: p.LastModifiedDate,
            by: p.LastModifiedUser,
            description: p.Description,
          });
        }
      }
    } catch (error) {
      if (error instanceof ParameterNotFound) return [];
      throw error;
    }
    return versions.sort((a, b) => b.version - a.version);
  };

  const remove = async (pipeline: string): Promise<boolean> => {
    try {
      await client.send(new DeleteParameterCommand({ Name: parameterName(pipeline) }));
      return true;
    } catch (error) {
      if (error instanceof ParameterNotFound) return false;
      throw error;
    }
  };

  return {
    ssmPrefix,
    parameterName,
    current,
    get: async (pipeline) => (await current(pipeline))?.chain,
    put,
    delete: remove,
    history,
    async rollback(pipeline, rollbackOptions = {}) {
      const versions = await history(pipeline);
      const to = pickRollbackTarget(versions, rollbackOptions.toVersion);
      rollbackOptions.check?.(to);
      const from = versions[0] as ChainVersion;
      const description =
        rollbackOptions.description?.(to) ?? `rollback of ${pipeline} to version ${to.version}`;
      const version = await put(pipeline, to.chain, description);
      return { from, to, version };
    },
  };
}

/**
 * The SSM prefix, the same for operator commands and the deployed Lambdas: `SWITCHYARD_SSM_PREFIX`
 * if set (what the stack gives its functions), else the config's `aws.ssmPrefix` (which
 * the config schema defaults). A malformed value is a `ConfigError` naming the variable.
 */
export function resolveSsmPrefix(config: SwitchyardConfig, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.SWITCHYARD_SSM_PREFIX?.trim();
  if (!fromEnv) return config.aws.ssmPrefix;
  const parsed = ssmPrefixSchema.safeParse(fromEnv);
  if (!parsed.success) {
    throw new ConfigError('SWITCHYARD_SSM_PREFIX', `'${fromEnv}' must be an SSM path such as /switchyard`);
  }
  return parsed.data;
}
