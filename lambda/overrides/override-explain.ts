/**
 * A pipeline explained for the operator console: the same resolution `switchyard explain --ssm`
 * prints (env > the operator override > config, by the gateway's own resolver), the parser's
 * warnings, the stored override and its history with who changed it and why.
 */
import type { Catalog } from '../core/catalog/catalog.js';
import type { Tier } from '../core/dsl/types.js';
import type { ChainOverrideStore } from './chain-override-store.js';
import { readChangeNote } from './change-note.js';
import { resolvePipelineSource } from './effective-source.js';
import { shownOverride } from './override-changes.js';

/** One version of the override, newest first. */
export interface OverrideHistoryEntry {
  version: number;
  /** ISO 8601; null when the store did not say. */
  modified: string | null;
  /** The stored value in one line (a document described). */
  value: string;
  /** The operator key's name for a console change; else the store's writer (an IAM ARN on AWS), or null. */
  who: string | null;
  /** The reason given in the console; null for a change made elsewhere. */
  why: string | null;
  /** What the change did, in words, or the store's description. */
  what: string | null;
}

/** `GET /v1/operator/pipelines/{pipeline}` (docs/http-api.md#operator-console). */
export interface PipelineExplanation {
  pipeline: string;
  /** The source that wins: `env`, `ssm` (the operator override, also the local store's) or `config`; null when none resolves. */
  source: 'env' | 'ssm' | 'config' | null;
  chain: string;
  tiers: string[][];
  /** Sources set but skipped, then the parser's warnings for the chain in force. */
  warnings: string[];
  /** A timed override's end (ISO 8601), while one is in force. */
  until?: string;
  /** With `until`: a pin (breaker openings of its routes ignored). */
  pinned?: boolean;
  canary?: { chain: string; tiers: string[][]; percent: number; since: string; autoAbort: boolean };
  configChain: string | null;
  /** The stored override, or null when the pipeline has none. */
  override: { value: string; shown: string; version: number } | null;
  /** Where overrides are kept: `SSM /switchyard/chains/p`, `local store …`. */
  store: string;
  history: OverrideHistoryEntry[];
}

const keys = (tiers: readonly Tier[]) => tiers.map((t) => t.members.map((m) => m.key));

/** Explains `pipeline` with `env` as the gateway's environment (its `MODEL_<P>` wins) at `now` (ms). */
export async function explainPipeline(
  pipeline: string,
  deps: {
    catalog: Catalog;
    store: ChainOverrideStore;
    env: Readonly<Record<string, string | undefined>>;
    where: string;
  },
  now: number,
): Promise<PipelineExplanation> {
  const { catalog, store } = deps;
  const [current, versions] = await Promise.all([store.current(pipeline), store.history(pipeline)]);
  const parameter = store.parameterName(pipeline);
  const { effective, skipped } = await resolvePipelineSource(
    pipeline,
    catalog,
    deps.env as NodeJS.ProcessEnv,
    { parameter, chain: current?.chain, version: current?.version },
    now,
  );
  const explanation: PipelineExplanation = {
    pipeline,
    source: effective?.source ?? null,
    chain: effective?.chain ?? '',
    tiers: keys(effective?.tiers ?? []),
    warnings: [...skipped, ...(effective?.warnings ?? []).map((w) => w.message)],
    configChain: catalog.config.pipelines[pipeline]?.chain ?? null,
    override: current
      ? { value: current.chain, shown: shownOverride(current.chain), version: current.version }
      : null,
    store: `${deps.where} (${parameter})`,
    history: versions.map((v) => {
      const note = readChangeNote(v.description);
      return {
        version: v.version,
        modified: v.modified ? v.modified.toISOString() : null,
        value: shownOverride(v.chain),
        who: note?.who ?? v.by ?? null,
        why: note?.why ?? null,
        what: note?.what ?? v.description ?? null,
      };
    }),
  };
  if (effective?.until !== undefined) {
    explanation.until = new Date(effective.until).toISOString();
    explanation.pinned = effective.pinned === true;
  }
  if (effective?.canary) {
    const { chain, tiers, percent, since, autoAbort } = effective.canary;
    explanation.canary = { chain, tiers: keys(tiers), percent, since, autoAbort };
  }
  return explanation;
}
