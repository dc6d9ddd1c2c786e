import { createHash } from 'node:crypto';
import type { PlannedLimit } from '../core/admission/limit-plan.js';
import type { AdmissionSettings } from '../core/catalog/admission-config-schema.js';

/** The `cap` dimension of the unnamed keys' shared cap (`admission.defaultKey.usdPerDay`). */
export const DEFAULT_KEY_CAP = 'key:(default)';

/**
 * The `cap` dimension of `BudgetUsedPercent`: which daily spend cap a value belongs to, so that a
 * small cap that is always full cannot hide another one behind a shared maximum. A pipeline's cap
 * is `pipeline:<name>`; the unnamed keys' cap is `key:(default)`; a named key's cap is `key:` and
 * 12 hex digits of the SHA-256 of its name, so a metric never carries a key's name. Only names the
 * admission settings list can appear, so the number of values is the operator's, not the callers'.
 */
export function budgetCapId(limit: Pick<PlannedLimit, 'scope' | 'name' | 'field'>): string {
  if (limit.scope === 'pipeline') return `pipeline:${limit.name}`;
  if (limit.field.startsWith('admission.defaultKey.')) return DEFAULT_KEY_CAP;
  return `key:${createHash('sha256').update(limit.name).digest('hex').slice(0, 12)}`;
}

/** A daily spend cap the config sets: its `cap` dimension, its config field and its US$. */
export interface KnownBudgetCap {
  scope: PlannedLimit['scope'];
  cap: string;
  field: string;
  usdPerDay: number;
}

/** Every `usdPerDay` of the admission section (the caps known at synth time), in config order. */
export function knownBudgetCaps(admission: AdmissionSettings): KnownBudgetCap[] {
  const caps: KnownBudgetCap[] = [];
  const add = (scope: PlannedLimit['scope'], name: string, base: string, usd: number | undefined) => {
    if (usd === undefined) return;
    const field = `${base}.usdPerDay`;
    caps.push({ scope, cap: budgetCapId({ scope, name, field }), field, usdPerDay: usd });
  };
  for (const [name, limits] of Object.entries(admission.keys))
    add('key', name, `admission.keys.${name}`, limits.usdPerDay);
  add('key', '(default)', 'admission.defaultKey', admission.defaultKey.usdPerDay);
  for (const [name, limits] of Object.entries(admission.pipelines))
    add('pipeline', name, `admission.pipelines.${name}`, limits.usdPerDay);
  return caps;
}
