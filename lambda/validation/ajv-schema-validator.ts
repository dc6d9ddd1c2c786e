/**
 * The JSON Schema adapter behind the core's `SchemaValidator` port (docs/design.md#structured-output):
 * ajv, each schema compiled once and kept in a bounded cache keyed by the SHA-256 of its JSON.
 * ajv itself is loaded on the first schema, each draft's build (draft-07, 2019-09, 2020-12, picked
 * by the schema's `$schema`) on the first schema of that draft, and the regex engine (RE2) on the
 * first schema with a pattern, so a cold start that never sees one does not pay for it.
 *
 * A caller's schema is untrusted code for the validator (docs/security.md#caller-supplied-schemas):
 * it is measured against the schema bounds before ajv sees it, its patterns run on RE2 (linear
 * time) instead of V8's backtracking engine, and each answer check is metered (regex work and
 * `$ref` evaluations), so that no schema and answer can hold the event loop.
 */
import { createHash } from 'node:crypto';
import type { Ajv as AjvInstance, ErrorObject } from 'ajv';
import * as z from 'zod';
import { setBounded } from '../core/bounded-map.js';
import { type SchemaBounds, schemaBoundsFields } from '../core/catalog/output-config-schema.js';
import type { CompiledSchema, SchemaCheck, SchemaValidator } from '../core/output/schema-validator.js';
import { type CheckMeter, CheckTooCostlyError, compilePattern, re2Engine } from './re2-pattern.js';
import { DRAFT_META_SCHEMA, type SchemaDraft, schemaDraft } from './schema-draft.js';
import { measureSchema, REF_STEP_KEYWORD, type SchemaPath, schemaRegexes } from './schema-walk.js';

/** Compiled schemas one process keeps; the oldest is compiled again when it returns. */
export const COMPILED_SCHEMA_LIMIT = 256;

/** The defaults of `structuredOutput`'s schema bounds (docs/configuration.md#answers), from the config schema. */
export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = z.strictObject(schemaBoundsFields()).parse({});

type Re2Module = typeof import('re2js');

/** `/items/0/price must be number`, or for an extra key `/ must NOT have additional properties: 'response'`. */
function describe(error: ErrorObject): string {
  const at = error.instancePath === '' ? '/' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties' ? `: '${String(error.params.additionalProperty)}'` : '';
  return `${at} ${error.message ?? 'is invalid'}${extra}`;
}

type AjvBuild = new (options: ConstructorParameters<typeof import('ajv').Ajv>[0]) => AjvInstance;

/**
 * A named export of a dynamically imported CommonJS module. Node (and a bundle without code
 * splitting) offers it by name; in a split Lambda bundle the module is a chunk whose only export
 * is `default`, the `module.exports` object.
 */
function exported(module: object, name: string): AjvBuild {
  const named = (module as Record<string, unknown>)[name];
  const value = named ?? (module as { default?: Record<string, unknown> }).default?.[name];
  if (typeof value !== 'function') throw new Error(`ajv has no export ${name}`);
  return value as AjvBuild;
}

/** Each draft's ajv build, imported on its first schema (2019-09 and 2020-12 add vocabularies). */
async function buildFor(draft: SchemaDraft): Promise<AjvBuild> {
  if (draft === '2020-12') return exported(await import('ajv/dist/2020.js'), 'Ajv2020');
  if (draft === '2019-09') return exported(await import('ajv/dist/2019.js'), 'Ajv2019');
  return exported(await import('ajv'), 'Ajv');
}

// Callers' schemas use keywords and formats of every tool: unknown ones are ignored, not fatal.
// Formats are not checked, so no format regex ever runs.
const AJV_OPTIONS = (regExp: ReturnType<typeof re2Engine>) => ({
  allErrors: true,
  strict: false,
  logger: false as const,
  validateFormats: false,
  code: { regExp },
});

/** The schema ajv compiles names its draft's meta-schema exactly as ajv registered it. */
function withMetaSchema(schema: Record<string, unknown>, draft: SchemaDraft): Record<string, unknown> {
  return schema.$schema === undefined ? schema : { ...schema, $schema: DRAFT_META_SCHEMA[draft] };
}

/** Options of {@link createAjvSchemaValidator}. */
export interface AjvSchemaValidatorOptions {
  /** Default {@link DEFAULT_SCHEMA_BOUNDS}. */
  bounds?: SchemaBounds | undefined;
  /** Default {@link COMPILED_SCHEMA_LIMIT}. */
  cacheLimit?: number | undefined;
}

export function createAjvSchemaValidator(
  options: AjvSchemaValidatorOptions = {},
): SchemaValidator & { size(): number } {
  const bounds = options.bounds ?? DEFAULT_SCHEMA_BOUNDS;
  const limit = options.cacheLimit ?? COMPILED_SCHEMA_LIMIT;
  // Validation is synchronous: one meter, reset before each check, is the current check's.
  const meter: CheckMeter = { patternWork: 0, maxPatternWork: 0, refSteps: 0, maxRefSteps: 0 };
  let re2: Re2Module | undefined;
  const instances = new Map<SchemaDraft, Promise<AjvInstance>>();
  const load = (draft: SchemaDraft): Promise<AjvInstance> => {
    const known = instances.get(draft);
    if (known) return known;
    const loading = buildFor(draft).then((Build) =>
      configure(
        new Build(
          AJV_OPTIONS(
            re2Engine(
              () => re2,
              () => meter,
            ),
          ),
        ),
      ),
    );
    instances.set(draft, loading);
    return loading;
  };
  const configure = (instance: AjvInstance): AjvInstance => {
    instance.addKeyword({
      keyword: REF_STEP_KEYWORD,
      schemaType: 'boolean',
      errors: false,
      validate: () => {
        meter.refSteps += 1;
        if (meter.refSteps > meter.maxRefSteps)
          throw new CheckTooCostlyError('structuredOutput.maxRefSteps', meter.maxRefSteps);
        return true;
      },
    });
    return instance;
  };
  const cache = new Map<string, CompiledSchema>();

  /** The first pattern RE2 cannot run, or one over `maxPatternChars`, as the caller's problem. */
  const patternProblem = (
    schema: Record<string, unknown>,
  ): { ok: false; at: SchemaPath; problem: string } | { ok: true; metered: Record<string, unknown> } => {
    const { patterns, metered } = schemaRegexes(schema);
    for (const { at, source } of patterns) {
      if (source.length > bounds.maxPatternChars)
        return {
          ok: false,
          at,
          problem: `is longer than ${bounds.maxPatternChars} characters (structuredOutput.maxPatternChars)`,
        };
      const compiled = re2 && compilePattern(re2, source);
      if (compiled && !compiled.ok) return { ok: false, at, problem: compiled.problem };
      const program = compiled?.ok ? compiled.regex.programSize() : 0;
      if (program > bounds.maxPatternProgram)
        return {
          ok: false,
          at,
          problem: `compiles to an RE2 program of ${program} instructions, more than ${bounds.maxPatternProgram} (structuredOutput.maxPatternProgram)`,
        };
    }
    return { ok: true, metered };
  };

  return {
    async compile(schema) {
      const measured = measureSchema(schema, bounds);
      if ('problem' in measured) return { ok: false, ...measured };
      const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
      const known = cache.get(key);
      if (known) return known;
      // A key named `pattern` outside a schema position still loads the engine: ajv must never
      // meet a pattern without it.
      const draft = schemaDraft(schema);
      if (!draft.ok) {
        const refused: CompiledSchema = { ok: false, at: ['$schema'], problem: draft.problem };
        setBounded(cache, key, refused, limit);
        return refused;
      }
      // The 2019-09 and 2020-12 meta-schemas hold patterns of their own (`$anchor`, `$dynamicAnchor`),
      // which ajv runs on the same engine when it checks the caller's schema.
      if (measured.hasPatterns || draft.draft !== 'draft-07') re2 ??= await import('re2js');
      const inspected = patternProblem(schema);
      const compiled = inspected.ok
        ? compileWith(await load(draft.draft), withMetaSchema(inspected.metered, draft.draft))
        : inspected;
      setBounded(cache, key, compiled, limit);
      return compiled;
    },
    size: () => cache.size,
  };

  function compileWith(instance: AjvInstance, schema: Record<string, unknown>): CompiledSchema {
    const resetMeter = () =>
      Object.assign(meter, {
        patternWork: 0,
        maxPatternWork: bounds.maxPatternWork,
        refSteps: 0,
        maxRefSteps: bounds.maxRefSteps,
      });
    try {
      // Checking the schema against its meta-schema runs the meta-schema's patterns: metered too.
      resetMeter();
      const validate = instance.compile(schema);
      const check: SchemaCheck = (value) => {
        resetMeter();
        try {
          return validate(value) ? [] : (validate.errors ?? []).map(describe);
        } catch (error) {
          if (error instanceof CheckTooCostlyError) return [`/ ${error.message}`];
          throw error;
        }
      };
      return { ok: true, check };
    } catch (error) {
      return { ok: false, problem: error instanceof Error ? error.message : 'is not a usable JSON Schema' };
    } finally {
      // ajv keeps every schema it compiled (and refuses a second one with the same $id): this
      // cache is the only one, and it is bounded.
      instance.removeSchema(schema);
    }
  }
}
