/**
 * The rules of every change to an operator override, shared by `switchyard chain` and the
 * operator console (docs/operations.md#the-operator-console): which chain may be written, what a
 * timed override, a pin or a canary does to the stored document, and what is in the way. Pure: the
 * caller reads and writes the store.
 */
import type { Catalog } from '../core/catalog/catalog.js';
import {
  type CanaryOverride,
  describeOverride,
  type OverrideDocument,
  readOverride,
  type TimedOverride,
  timedInForce,
} from '../core/catalog/chain-override.js';
import { useMismatch } from '../core/catalog/chain-sources.js';
import type { ParsedChain } from '../core/dsl/types.js';
import { OverrideRefusedError } from './override-refused-error.js';
import { CLI_NAMES, type OverrideInputNames, overrideEnd, parseCanaryPercent } from './override-time.js';

/** A timed override (with or without a pin) or a canary, checked. */
export type OverrideChange = { timed: TimedOverride } | { canary: CanaryOverride };

/** What asks for a timed override, a pin or a canary: the CLI's flags, the console's JSON fields. */
export interface ChangeRequest {
  for?: string | undefined;
  until?: string | undefined;
  pin: boolean;
  /** Share in %, as text (`--canary 10`). */
  canary?: string | undefined;
  autoAbort: boolean;
}

/** `2026-12-01T20:00:00Z`: ISO 8601 without the milliseconds when there are none. */
export function instant(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * The chain `text` parsed by the same parser the gateway uses, when it may stand as `pipeline`'s
 * override: it resolves to at least one model and serves what the pipeline serves. Its warnings
 * are in the result, for the caller to show before (CLI) or instead of (console check) writing.
 */
export function checkOverrideChain(catalog: Catalog, pipeline: string, text: string): ParsedChain {
  const parsed = catalog.parse(text.trim());
  if (parsed.tiers.length === 0) {
    const why = parsed.warnings.map((w) => w.message).join('; ') || 'it is empty';
    throw new OverrideRefusedError(`'${text.trim()}' resolves to no model (${why}); nothing written`);
  }
  const mismatch = useMismatch(pipeline, parsed.tiers, catalog);
  if (mismatch !== undefined)
    throw new OverrideRefusedError(
      `'${text.trim()}' ${mismatch}; the gateway would skip it; nothing written`,
    );
  return parsed;
}

/** The timed override or canary `request` asks for, checked; `now` in ms. */
export function changeOf(
  chain: string,
  request: ChangeRequest,
  now: number,
  names: OverrideInputNames = CLI_NAMES,
): OverrideChange {
  const until = overrideEnd(request, now, names);
  if (request.canary !== undefined) {
    if (until !== undefined || request.pin)
      throw new OverrideRefusedError(
        `${names.canary} cannot be combined with ${names.for}, ${names.until} or ${names.pin}`,
      );
    const percent = parseCanaryPercent(request.canary, names.canary);
    return { canary: { chain, percent, since: instant(now), autoAbort: request.autoAbort } };
  }
  if (request.autoAbort) throw new OverrideRefusedError(`${names.autoAbort} belongs to ${names.canary}`);
  if (until === undefined) {
    const flag = request.pin ? names.pin : names.env;
    throw new OverrideRefusedError(`${flag} needs an end: add ${names.for} DURATION or ${names.until} TIME`);
  }
  return { timed: { chain, until: instant(until), pin: request.pin } };
}

/** The document after the change; refuses what would overlap (a pin over a canary, two canaries). */
export function applyChange(
  current: OverrideDocument,
  change: OverrideChange,
  now: number,
  pipeline: string,
): OverrideDocument {
  const steady = current.chain === undefined ? {} : { chain: current.chain };
  if (current.canary) {
    const what = 'timed' in change ? 'a timed override' : 'another canary';
    throw new OverrideRefusedError(
      `a canary of ${current.canary.chain} at ${current.canary.percent} % is running on ${pipeline}; ` +
        `promote or abort it before ${what}`,
      { conflict: true },
    );
  }
  if ('timed' in change) return { ...steady, timed: change.timed };
  if (timedInForce(current, now)) {
    throw new OverrideRefusedError(
      `${pipeline} is held on ${current.timed?.chain} until ${current.timed?.until}; ` +
        'let it end or clear it before a canary',
      { conflict: true },
    );
  }
  return { ...steady, canary: change.canary };
}

/** The override document of a stored value (empty when there is none), or a refusal telling how to start over. */
export function storedDocument(pipeline: string, raw: string | undefined): OverrideDocument {
  if (raw === undefined) return {};
  const reading = readOverride(raw);
  if (reading.ok) return reading.document;
  throw new OverrideRefusedError(
    `the override of ${pipeline} cannot be read (${reading.problem}); clear it or set a plain chain first`,
    { conflict: true },
  );
}

/** A plain `set` replaces a chain and ends a timed override, but never ends a canary: promote or abort does. */
export function refuseOverCanary(pipeline: string, document: OverrideDocument): void {
  const { canary } = document;
  if (canary)
    throw new OverrideRefusedError(
      `a canary of ${canary.chain} at ${canary.percent} % is running on ${pipeline}; promote or abort it first`,
      { conflict: true },
    );
}

/** The chains a stored value holds (steady, timed, canary), for checking a rollback target. */
export function chainsOf(raw: string): string[] {
  const reading = readOverride(raw);
  const chains = reading.ok
    ? [reading.document.chain, reading.document.timed?.chain, reading.document.canary?.chain]
    : [raw];
  return chains.filter((text): text is string => text !== undefined);
}

/** A stored value for people: a plain chain as it is, a document in one line. */
export function shownOverride(raw: string): string {
  const reading = readOverride(raw);
  return reading.ok && raw.trim().startsWith('{') ? describeOverride(reading.document) : raw;
}
