/**
 * The JSON Schema adapter behind the core's `SchemaValidator` port (docs/design.md#structured-output):
 * ajv, each schema compiled once and kept in a bounded cache keyed by the SHA-256 of its JSON.
 * ajv itself is loaded on the first schema, so a cold start that never sees `response_format`
 * does not pay for it.
 */
import { createHash } from 'node:crypto';
import type { Ajv as AjvInstance, ErrorObject } from 'ajv';
import { setBounded } from '../core/bounded-map.js';
import type { CompiledSchema, SchemaCheck, SchemaValidator } from '../core/output/schema-validator.js';

/** Compiled schemas one process keeps; the oldest is compiled again when it returns. */
export const COMPILED_SCHEMA_LIMIT = 256;

/** `/items/0/price must be number`, or for an extra key `/ must NOT have additional properties: 'response'`. */
function describe(error: ErrorObject): string {
  const at = error.instancePath === '' ? '/' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties' ? `: '${String(error.params.additionalProperty)}'` : '';
  return `${at} ${error.message ?? 'is invalid'}${extra}`;
}

function compileWith(ajv: AjvInstance, schema: Record<string, unknown>): CompiledSchema {
  try {
    const validate = ajv.compile(schema);
    const check: SchemaCheck = (value) => (validate(value) ? [] : (validate.errors ?? []).map(describe));
    return { ok: true, check };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : 'is not a usable JSON Schema' };
  } finally {
    // ajv keeps every schema it compiled (and refuses a second one with the same $id): this
    // cache is the only one, and it is bounded.
    ajv.removeSchema(schema);
  }
}

export function createAjvSchemaValidator(
  limit = COMPILED_SCHEMA_LIMIT,
): SchemaValidator & { size(): number } {
  let ajv: Promise<AjvInstance> | undefined;
  // Callers' schemas use keywords and formats of every draft-07 tool: unknown ones are ignored, not fatal.
  const load = () =>
    (ajv ??= import('ajv').then(
      ({ Ajv }) => new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false }),
    ));
  const cache = new Map<string, CompiledSchema>();

  return {
    async compile(schema) {
      const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
      const known = cache.get(key);
      if (known) return known;
      const compiled = compileWith(await load(), schema);
      setBounded(cache, key, compiled, limit);
      return compiled;
    },
    size: () => cache.size,
  };
}
