import type { AdmissionLimitsConfig, AdmissionSettings } from '../catalog/admission-config-schema.js';

/** The three kinds of limit: requests and tokens per sliding minute, spend per UTC day. */
export type LimitKind = 'requests' | 'tokens' | 'spend';

/** One limit that applies to a request. */
export interface PlannedLimit {
  /** `route`: an account route's declared quota (docs/concepts.md#declared-quotas), taken per attempt. */
  scope: 'key' | 'pipeline' | 'route';
  /** The key name, the pipeline name, or the account route id. */
  name: string;
  kind: LimitKind;
  /** Requests, tokens, or nano-US$ (spend is counted in whole nano-dollars, so sums are exact). */
  cap: number;
  /** The config field that set it, e.g. `admission.keys.alice.usdPerDay`: named in refusals. */
  field: string;
}

/** Nano-US$ per US$: spend counters hold integers. */
export const NANO_PER_USD = 1_000_000_000;

/** US$ → whole nano-US$. */
export function toNano(usd: number): number {
  return Math.round(usd * NANO_PER_USD);
}

function fromConfig(
  limits: AdmissionLimitsConfig,
  scope: PlannedLimit['scope'],
  name: string,
  fieldBase: string,
): PlannedLimit[] {
  const planned: PlannedLimit[] = [];
  const add = (kind: LimitKind, cap: number | undefined, field: string) => {
    if (cap !== undefined) planned.push({ scope, name, kind, cap, field: `${fieldBase}.${field}` });
  };
  add('requests', limits.requestsPerMinute, 'requestsPerMinute');
  add('tokens', limits.tokensPerMinute, 'tokensPerMinute');
  add('spend', limits.usdPerDay === undefined ? undefined : toNano(limits.usdPerDay), 'usdPerDay');
  return planned;
}

/**
 * Every limit that applies to a request of caller key `keyName` (undefined while authentication is
 * off: no key limit applies) on `pipeline` (`adhoc` for every ad-hoc chain; undefined: no pipeline limit): the key's own limits or
 * `defaultKey`'s, then the pipeline's.
 */
export function plannedLimits(
  settings: AdmissionSettings,
  keyName: string | undefined,
  pipeline: string | undefined,
): PlannedLimit[] {
  const planned: PlannedLimit[] = [];
  if (keyName !== undefined) {
    const own = settings.keys[keyName];
    planned.push(
      ...(own
        ? fromConfig(own, 'key', keyName, `admission.keys.${keyName}`)
        : fromConfig(settings.defaultKey, 'key', keyName, 'admission.defaultKey')),
    );
  }
  const forPipeline = pipeline === undefined ? undefined : settings.pipelines[pipeline];
  if (pipeline !== undefined && forPipeline)
    planned.push(...fromConfig(forPipeline, 'pipeline', pipeline, `admission.pipelines.${pipeline}`));
  return planned;
}

/** The counter of a limit: `key:alice:spend`. */
export function counterName(limit: Pick<PlannedLimit, 'scope' | 'name' | 'kind'>): string {
  return `${limit.scope}:${limit.name}:${limit.kind}`;
}
