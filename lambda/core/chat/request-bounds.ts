/**
 * Bounds on the work one request may ask for (config `limits`, models' `maxOutputTokens`). The
 * body limit caps bytes; these cap what the bytes may ask: messages to process and tokens to
 * generate, both paid for by everyone who shares the gateway's provider quota.
 */

import { type LimitsConfig, limitsSchema } from '../catalog/config-schema.js';
import type { Tier } from '../dsl/types.js';
import type { RequestDemand } from '../lifecycle/request-demand.js';

/** The bounds in force: the config's `limits` block. */
export type RequestBounds = Readonly<LimitsConfig>;

/** The bounds of a config that sets no `limits` field: the config schema's defaults. */
export const DEFAULT_REQUEST_BOUNDS: RequestBounds = Object.freeze(limitsSchema.parse({}));

/** A request over a bound: the field it names and a message that states the limit. */
export interface BoundViolation {
  param: string;
  message: string;
}

/** Checked before routing: the number of messages, as the caller's door counted them. */
export function checkMessageCount(
  demand: Pick<RequestDemand, 'messages'>,
  bounds: RequestBounds,
): BoundViolation | undefined {
  if (demand.messages === undefined || demand.messages <= bounds.maxMessages) return undefined;
  return {
    param: 'messages',
    message: `messages: at most ${bounds.maxMessages} messages per request, got ${demand.messages}`,
  };
}

/**
 * Checked once the chain is known: the output bound the caller asked for (in the field its door
 * names, e.g. `max_tokens`) against the smallest output limit of the chain's models, so
 * no fallback can fail for asking too much.
 *
 * @param outputLimit a model key's `maxOutputTokens`, or undefined for the default bound.
 */
export function checkOutputTokens(
  demand: Pick<RequestDemand, 'output'>,
  tiers: readonly Tier[],
  outputLimit: (modelKey: string) => number | undefined,
  bounds: RequestBounds,
): BoundViolation | undefined {
  if (demand.output === undefined) return undefined;
  const { tokens: asked, param } = demand.output;
  let limit = Number.POSITIVE_INFINITY;
  let by: string | undefined;
  for (const member of tiers.flatMap((tier) => tier.members)) {
    const own = outputLimit(member.key);
    const modelLimit = own ?? bounds.maxOutputTokens;
    if (modelLimit < limit) {
      limit = modelLimit;
      by = own === undefined ? undefined : member.key;
    }
  }
  if (!Number.isFinite(limit)) limit = bounds.maxOutputTokens;
  if (asked <= limit) return undefined;
  const whose = by === undefined ? 'the gateway limit' : `the limit of model '${by}'`;
  return { param, message: `${param}: at most ${limit} (${whose}), got ${asked}` };
}

/** A caller-supplied name cut to `maxChars` (with `…`) before it is echoed in an error. */
export function echoable(name: string, maxChars: number): string {
  return name.length <= maxChars ? name : `${name.slice(0, maxChars)}…`;
}
