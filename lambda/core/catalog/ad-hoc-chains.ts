import { printChain } from '../dsl/print-chain.js';
import type { Tier } from '../dsl/types.js';
import type { AdHocChainsSetting } from './admission-config-schema.js';
import { envVarName } from './chain-sources.js';

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

/** The pipeline id of an ad-hoc chain with these resolved tiers: `chain:` and its canonical text. */
export function adHocId(tiers: Tier[]): string {
  return `${AD_HOC_PREFIX}${printChain(tiers)}`;
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

/**
 * {@link stateScope} for a gateway whose configured pipelines `isConfigured` names: a pipeline
 * only an environment override names is kept under its variable (`env:MODEL_FOO`), since every
 * spelling of `foo` that maps to `MODEL_FOO` routes alike: callers cannot make new names of it.
 * `:` is in no pipeline name, so such a scope never meets a configured pipeline's.
 */
export function stateScopeIn(isConfigured: (pipeline: string) => boolean): (pipeline: string) => string {
  return (pipeline) =>
    isConfigured(pipeline) || isAdHoc(pipeline) ? stateScope(pipeline) : `env:${envVarName(pipeline)}`;
}

/** The settings that decide which ad-hoc chains a caller may send (the `admission` section's). */
export interface AdHocChainSettings {
  keys: Readonly<Record<string, { adHocChains?: AdHocChainsSetting | undefined }>>;
  adHocChains: AdHocChainsSetting;
}

/** Why a caller may not send an ad-hoc chain: the setting that refuses it, and what to tell the caller. */
export interface AdHocRefusal {
  /** The config field in force, e.g. `admission.keys.alice.adHocChains`. */
  field: string;
  message: string;
}

/** A chain's {@link adHocId}, undefined when it resolves to no model. */
export type CanonicalChain = (chain: string) => string | undefined;

// Allow-lists are fixed per settings object (the config, or one parsed SSM value): canonicalise once.
const allowed = new WeakMap<readonly string[], ReadonlySet<string>>();

function allowedIds(list: readonly string[], canonical: CanonicalChain): ReadonlySet<string> {
  let ids = allowed.get(list);
  if (!ids) {
    ids = new Set(list.map(canonical).filter((id): id is string => id !== undefined));
    allowed.set(list, ids);
  }
  return ids;
}

/**
 * Whether caller key `keyName` (undefined while authentication is off) may send the ad-hoc chain
 * whose {@link adHocId} is `chain`: its own `admission.keys.<k>.adHocChains` when set, else
 * `admission.adHocChains`. Undefined when it may; else the refusal naming the field in force.
 */
export function adHocRefusal(
  settings: AdHocChainSettings,
  keyName: string | undefined,
  chain: string,
  canonical: CanonicalChain,
): AdHocRefusal | undefined {
  const own = keyName === undefined ? undefined : settings.keys[keyName]?.adHocChains;
  const rule = own ?? settings.adHocChains;
  const field = own === undefined ? 'admission.adHocChains' : `admission.keys.${keyName}.adHocChains`;
  if (rule === true) return undefined;
  if (rule === false)
    return {
      field,
      message: `ad-hoc chains are turned off for this caller (${field}); name a pipeline in \`model\``,
    };
  if (allowedIds(rule, canonical).has(chain)) return undefined;
  return {
    field,
    message: `this ad-hoc chain is not on this caller's allow-list (${field}); name a pipeline in \`model\`, or a chain of that list`,
  };
}

/**
 * Start-up check of the config's allow-lists: a listed chain that resolves to no model would
 * allow nothing, which is a typo, not a setting. Returns the field and the problem of the first
 * such entry, or undefined.
 */
export function unresolvedAllowListEntry(
  settings: AdHocChainSettings,
  canonical: CanonicalChain,
): { field: string; problem: string } | undefined {
  const lists: [string, AdHocChainsSetting | undefined][] = [
    ['admission.adHocChains', settings.adHocChains],
    ...Object.entries(settings.keys).map(([key, limits]): [string, AdHocChainsSetting | undefined] => [
      `admission.keys.${key}.adHocChains`,
      limits.adHocChains,
    ]),
  ];
  for (const [field, list] of lists) {
    if (!Array.isArray(list)) continue;
    for (const [index, chain] of list.entries()) {
      if (canonical(chain) === undefined)
        return { field: `${field}[${index}]`, problem: `'${chain}' resolves to no model` };
    }
  }
  return undefined;
}
