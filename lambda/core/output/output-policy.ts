import type { SwitchyardConfig } from '../catalog/config-schema.js';
import type {
  LastResortSettings,
  RepairSettings,
  SubstitutesSettings,
} from '../catalog/output-config-schema.js';

/** What one pipeline does with its answers, after per-pipeline overrides of the top-level block. */
export interface OutputPolicy {
  structured: RepairSettings;
  substitutes?: SubstitutesSettings | undefined;
  systemPromptSuffix?: string | undefined;
  lastResort?: LastResortSettings | undefined;
}

/**
 * The output policy of `pipeline`: its own fields over the top-level `structuredOutput`. An
 * ad-hoc chain, or a pipeline only an override names, has the top-level policy and nothing else.
 */
export function outputPolicy(config: SwitchyardConfig, pipeline: string): OutputPolicy {
  const own = Object.hasOwn(config.pipelines, pipeline) ? config.pipelines[pipeline] : undefined;
  // The schema bounds in the same block are the validator's, process-wide, not a pipeline's.
  const { repairAttempts, repairWith } = config.structuredOutput;
  const structured: RepairSettings = { repairAttempts, repairWith };
  if (own?.structuredOutput?.repairAttempts !== undefined)
    structured.repairAttempts = own.structuredOutput.repairAttempts;
  if (own?.structuredOutput?.repairWith !== undefined)
    structured.repairWith = own.structuredOutput.repairWith;
  return {
    structured,
    substitutes: own?.substitutes,
    systemPromptSuffix: own?.systemPromptSuffix,
    lastResort: own?.lastResort,
  };
}
