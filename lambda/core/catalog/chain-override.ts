import * as z from 'zod';
import { setBounded } from '../bounded-map.js';
import { lazySchema } from '../lazy-schema.js';

/**
 * An operator override's value (docs/design.md#timed-overrides-and-canaries). A plain chain string
 * is the override as it always was; a value starting with `{` is this JSON document, so the same
 * SSM parameter (or `MODEL_<P>`) can also hold a timed override and a canary.
 */
const timedSchema = lazySchema(() =>
  z.strictObject({
    /** The chain in force until `until`. */
    chain: z.string().trim().min(1, 'must name a chain'),
    /** ISO 8601 with a time zone; from this instant on the override no longer applies. */
    until: z.iso.datetime({ offset: true }),
    /** Breaker openings of this chain's routes are ignored while it is in force. Default false. */
    pin: z.boolean().default(false),
  }),
);

const canarySchema = lazySchema(() =>
  z.strictObject({
    /** The new chain, which gets `percent` of the pipeline's requests. */
    chain: z.string().trim().min(1, 'must name a chain'),
    /** Share of requests in %, more than 0 and less than 100. */
    percent: z.number().gt(0).lt(100),
    /** When the canary started (ISO 8601): `chain status` counts requests from here. */
    since: z.iso.datetime({ offset: true }),
    /**
     * Each container stops sending requests to the canary once its failure rate reaches the
     * pipeline's breaker thresholds (`failureRate` over at least `minSamples` in `windowMs`). Default false.
     */
    autoAbort: z.boolean().default(false),
  }),
);

export const overrideDocumentSchema = lazySchema(() =>
  z.strictObject({
    /** The override's steady chain; absent: the next source (the config) supplies it. */
    chain: z.string().trim().min(1, 'must name a chain').optional(),
    timed: timedSchema.optional(),
    canary: canarySchema.optional(),
  }),
);

export type OverrideDocument = z.infer<typeof overrideDocumentSchema>;
export type TimedOverride = OverrideDocument['timed'] & {};
export type CanaryOverride = OverrideDocument['canary'] & {};

/** An override value read as a document, or why it cannot be. */
export type OverrideReading = { ok: true; document: OverrideDocument } | { ok: false; problem: string };

/** Reads a raw override value: a plain chain, or the JSON document. Never throws. */
export function readOverride(raw: string): OverrideReading {
  const text = raw.trim();
  if (!text.startsWith('{')) return { ok: true, document: { chain: text } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the override starts with { but is not JSON' };
  }
  const parsed = overrideDocumentSchema.safeParse(json);
  if (parsed.success) return { ok: true, document: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || '(document)';
  return { ok: false, problem: `override field ${field}: ${issue?.message ?? 'invalid'}` };
}

/** Distinct override values a {@link cachedOverrideReader} remembers. */
export const OVERRIDE_READINGS_KEPT = 100;

/**
 * {@link readOverride} for the request path: every request resolves its chain, and an override
 * document (a timed override, a canary) would otherwise be JSON-parsed and checked on each one. The
 * reading of a value depends on nothing else, so each distinct value is read once; the last
 * {@link OVERRIDE_READINGS_KEPT} are kept. Readings are shared: callers must not change them.
 */
export function cachedOverrideReader(kept = OVERRIDE_READINGS_KEPT): (raw: string) => OverrideReading {
  const readings = new Map<string, OverrideReading>();
  return (raw) => {
    const known = readings.get(raw);
    if (known) return known;
    const reading = readOverride(raw);
    setBounded(readings, raw, reading, kept);
    return reading;
  };
}

/** What an override document puts in force at one instant. */
export interface OverrideInForce {
  /** The chain in force; undefined: the next source supplies it (an ended timed override, or a canary over the config). */
  chain?: string | undefined;
  /** Ms since epoch when `chain` stops applying: only for a timed override. */
  until?: number | undefined;
  /** Breaker openings are ignored (a timed override set with `--pin`). */
  pinned: boolean;
  /** A canary over the stable chain; never while a timed override is in force. */
  canary?: CanaryOverride | undefined;
}

/**
 * The override at `now` (ms): its timed chain strictly before `until`, else its steady chain and
 * canary. From `until` on, the timed part is as if it were not there, so every reader returns to
 * what was in force before it without anyone acting.
 */
export function overrideAt(document: OverrideDocument, now: number): OverrideInForce {
  const { timed } = document;
  if (timed) {
    const until = Date.parse(timed.until);
    if (now < until) return { chain: timed.chain, until, pinned: timed.pin };
  }
  return { chain: document.chain, pinned: false, canary: document.canary };
}

/** Whether a timed override is in force at `now`. */
export function timedInForce(document: OverrideDocument, now: number): boolean {
  return document.timed !== undefined && now < Date.parse(document.timed.until);
}

/**
 * The value to store: a document that holds only a steady chain is written as that plain chain,
 * so plain tools (and older readers) still see what they always saw; an empty one is undefined.
 */
export function writeOverride(document: OverrideDocument): string | undefined {
  const { chain, timed, canary } = document;
  if (!timed && !canary) return chain;
  return JSON.stringify({
    ...(chain ? { chain } : {}),
    ...(timed ? { timed } : {}),
    ...(canary ? { canary } : {}),
  });
}

/** One line for people: `llama-or,gpt-mini`, `pin llama-or until 2026-12-01T20:00:00Z, then a`... */
export function describeOverride(document: OverrideDocument): string {
  const parts: string[] = [];
  if (document.timed) {
    const kind = document.timed.pin ? 'pin' : 'timed';
    parts.push(`${kind} ${document.timed.chain} until ${document.timed.until}`);
  }
  if (document.canary) {
    const auto = document.canary.autoAbort ? ' (auto-abort)' : '';
    parts.push(`canary ${document.canary.percent} % ${document.canary.chain}${auto}`);
  }
  const steady = document.chain ?? '(the config chain)';
  if (parts.length === 0) return steady;
  return `${parts.join('; ')}; ${document.timed ? 'then' : 'stable'} ${steady}`;
}
