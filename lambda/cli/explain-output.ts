import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { LastResortSettings, SubstitutesSettings } from '../core/catalog/output-config-schema.js';
import { type OutputPolicy, outputPolicy } from '../core/output/output-policy.js';

/** `explain --json`'s `output` of a pipeline (docs/design.md#the-chain-dsl): what it does with answers. */
export interface ExplainedOutput {
  structuredOutput: OutputPolicy['structured'];
  substitutes: SubstitutesSettings | null;
  systemPromptSuffix: string | null;
  lastResort: LastResortSettings | null;
}

export function explainOutput(config: SwitchyardConfig, pipeline: string): ExplainedOutput {
  const policy = outputPolicy(config, pipeline);
  return {
    structuredOutput: policy.structured,
    substitutes: policy.substitutes ?? null,
    systemPromptSuffix: policy.systemPromptSuffix ?? null,
    lastResort: policy.lastResort ?? null,
  };
}

const quoted = (text: string, max = 60) =>
  JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

function substitutesLine(s: SubstitutesSettings | null): string {
  if (!s) return 'substitutes   answers as they come';
  const steps = [
    s.stripHeadings ? 'headings removed' : undefined,
    s.foldLists ? 'lists folded' : undefined,
    s.maxChars !== undefined ? `cut at a sentence within ${s.maxChars} characters` : undefined,
  ].filter((step): step is string => step !== undefined);
  return `substitutes   ${steps.length > 0 ? steps.join(', ') : 'answers as they come'} (answers not from tier 1)`;
}

function lastResortLine(l: LastResortSettings | null): string {
  if (!l) return 'last resort   none: the caller gets the error';
  if (l.type === 'template') return `last resort   template ${quoted(l.content)}`;
  return `last resort   the last good answer for the same request, kept ${l.ttlSeconds} s`;
}

/** The human lines of `explain` for a pipeline's output settings. */
export function outputLines(output: ExplainedOutput): string[] {
  const { repairAttempts, repairWith } = output.structuredOutput;
  const repairs =
    repairAttempts === 0
      ? 'no repair: an invalid answer falls back'
      : `${repairAttempts} repair(s) on the ${repairWith === 'same' ? 'same' : 'next'} model, then fall back`;
  return [
    `structured    ${repairs}`,
    substitutesLine(output.substitutes),
    `prompt        ${output.systemPromptSuffix === null ? 'no suffix' : `suffix ${quoted(output.systemPromptSuffix)}`}`,
    lastResortLine(output.lastResort),
  ];
}
