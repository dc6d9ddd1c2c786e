/**
 * What a pipeline does with its answers (docs/design.md#structured-output,
 * docs/design.md#output-alignment, docs/design.md#last-resort): the repair policy of structured
 * output, post-processing of substitute answers, a system-prompt suffix, and the last resort.
 * Kept apart from the routing fields so that each block reads (and changes) on its own.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

/** How a structured answer that fails its check is repaired. */
const structuredOutputFields = once(() => ({
  /** Attempts that send the schema and the validation errors back, per request (0–5). */
  repairAttempts: z.int().min(0).max(5),
  /** `same`: the repair goes to the model that answered wrongly; `next`: to the next model selected. */
  repairWith: z.enum(['same', 'next']),
}));

/**
 * Bounds on a caller's `response_format` JSON Schema and on the work of checking one answer
 * against it (docs/security.md#caller-supplied-schemas). Process-wide: one validator serves every
 * pipeline. A schema over a bound is the caller's 400 before any attempt; an answer whose check
 * would exceed a work bound is refused as `schema_invalid`.
 */
export const schemaBoundsFields = once(() => ({
  /** Most JSON values (objects, arrays, strings, numbers…) in one schema. Default 5000. */
  maxSchemaNodes: positiveInt.max(1_000_000).default(5_000),
  /** Deepest nesting of JSON values in one schema (the schema itself is depth 1). Default 32. */
  maxSchemaDepth: positiveInt.max(1_000).default(32),
  /** Longest `pattern` (or `patternProperties` key), in UTF-16 code units. Default 1000. */
  maxPatternChars: positiveInt.max(100_000).default(1_000),
  /**
   * Largest RE2 program (instructions) one pattern may compile to: RE2's own measure of a
   * pattern's cost (`a{1,500}` is about 1000), which also sets what building its DFA costs. Default 1000.
   */
  maxPatternProgram: positiveInt.max(100_000).default(1_000),
  /**
   * Regex work of one answer check: for each string tested, the pattern's RE2 program size times
   * the string's length plus one, summed; over it, the answer is refused before the test runs.
   * RE2 is linear, so this bounds the time: a few ns per unit once its DFA is built, up to about
   * 0.5 µs per unit while a nested repetition's DFA is built on first use (about 0.1 s at the
   * default, bench/structured-output). Default 200000.
   */
  maxPatternWork: positiveInt.max(10_000_000_000).default(200_000),
  /**
   * `$ref` evaluations of one answer check: a recursive schema can branch at every level, which
   * is exponential in the answer's depth (about 4 µs per step in bench/structured-output). Default 10000.
   */
  maxRefSteps: positiveInt.max(100_000_000).default(10_000),
}));

/** The top-level `structuredOutput` block: every pipeline's repair policy, defaulted, and the schema bounds. */
export const structuredOutputSchema = lazySchema(() =>
  z.strictObject({
    /** Default 1. */
    repairAttempts: structuredOutputFields().repairAttempts.default(1),
    /** Default `same`. */
    repairWith: structuredOutputFields().repairWith.default('same'),
    ...schemaBoundsFields(),
  }),
);

/** Post-processing of any answer that did not come from tier 1 (seed 003: style that survives a substitute). */
export const substitutesSchema = lazySchema(() =>
  z.strictObject({
    /** Longest answer in characters: a longer one is cut at the last sentence end within it. Default none. */
    maxChars: positiveInt.max(1_000_000).optional(),
    /** Remove markdown headings (`# Title` lines keep their text). Default false. */
    stripHeadings: z.boolean().default(false),
    /** Fold list items (`- a`, `1. b`) into sentences on one line. Default false. */
    foldLists: z.boolean().default(false),
  }),
);

/** The answer used only when every allowed route has failed. */
export const lastResortSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('template'),
      /** The answer text, sent as is. */
      content: z.string().min(1).max(100_000),
    }),
    z.strictObject({
      type: z.literal('cache'),
      /** How long the last good answer for the same request is kept, in seconds. Default 86400 (a day). */
      ttlSeconds: positiveInt.max(30 * 86_400).default(86_400),
    }),
  ]),
);

/** The pipeline fields of this block, spread into `pipelines.*`. */
export const pipelineOutputFields = once(() => ({
  /** Repair policy of this pipeline; each field left out keeps the top-level `structuredOutput` value. */
  structuredOutput: z.strictObject(structuredOutputFields()).partial().optional(),
  /** Post-processing of substitute answers. Default none. */
  substitutes: substitutesSchema.optional(),
  /** Text appended to the system prompt of every attempt, on every model. Default none. */
  systemPromptSuffix: z.string().min(1).max(10_000).optional(),
  /** Default none: a request whose every route failed gets today's error. */
  lastResort: lastResortSchema.optional(),
}));

/** The top-level `answerCache` block: bounds of the last-resort cache. */
export const answerCacheSchema = lazySchema(() =>
  z.strictObject({
    /** Answers one process keeps in memory (the local store); the oldest is forgotten first. Default 1000. */
    maxEntries: positiveInt.max(1_000_000).default(1_000),
    /** Largest cached answer, in bytes of its JSON; a larger one is not kept. Default 32768 (DynamoDB allows 400 KB). */
    maxBytes: positiveInt.max(350_000).default(32_768),
  }),
);

export type StructuredOutputSettings = z.infer<typeof structuredOutputSchema>;
/** How a refused structured answer is repaired, after per-pipeline overrides. */
export type RepairSettings = Pick<StructuredOutputSettings, 'repairAttempts' | 'repairWith'>;
/** The schema bounds of {@link schemaBoundsFields}, every field filled. */
export type SchemaBounds = Pick<StructuredOutputSettings, keyof ReturnType<typeof schemaBoundsFields>>;
export type SubstitutesSettings = z.infer<typeof substitutesSchema>;
export type LastResortSettings = z.infer<typeof lastResortSchema>;
export type AnswerCacheSettings = z.infer<typeof answerCacheSchema>;
