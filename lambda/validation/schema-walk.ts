/**
 * What the validator learns about a caller's JSON Schema before ajv sees it
 * (docs/security.md#caller-supplied-schemas): its size and depth against the bounds, every regex
 * in it with its path, and a copy in which each `$ref` is metered. The size walk uses its own stack,
 * so a schema nested thousands of levels deep is refused instead of overflowing the call stack.
 */
import type { SchemaBounds } from '../core/catalog/output-config-schema.js';

/** A path inside the schema: `['properties', 'x', 'pattern']`. */
export type SchemaPath = Array<string | number>;

/** Why a schema is refused, and where. */
export interface SchemaProblem {
  at: SchemaPath;
  problem: string;
}

/** A regex of the schema: a `pattern` value or a `patternProperties` key. */
export interface SchemaPattern {
  at: SchemaPath;
  source: string;
}

/** The keyword beside every `$ref` of the compiled copy: one step of `maxRefSteps` each time it runs. */
export const REF_STEP_KEYWORD = '$switchyardRefStep';

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

function pathOf(frame: Frame): SchemaPath {
  const path: SchemaPath = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.unshift(f.key);
  return path;
}

/**
 * Counts the JSON values of `schema` and their depth; the first bound crossed is the problem.
 * `hasPatterns`: some object has a `pattern` or `patternProperties` key (the regex engine is
 * loaded only then).
 */
export function measureSchema(
  schema: unknown,
  bounds: Pick<SchemaBounds, 'maxSchemaNodes' | 'maxSchemaDepth'>,
): SchemaProblem | { hasPatterns: boolean } {
  const stack: Frame[] = [{ value: schema, depth: 1, parent: undefined, key: '' }];
  let nodes = 0;
  let hasPatterns = false;
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    nodes += 1;
    if (nodes > bounds.maxSchemaNodes)
      return {
        at: [],
        problem: `has more than ${bounds.maxSchemaNodes} JSON values (structuredOutput.maxSchemaNodes)`,
      };
    if (frame.depth > bounds.maxSchemaDepth)
      return {
        at: pathOf(frame),
        problem: `nests deeper than ${bounds.maxSchemaDepth} levels (structuredOutput.maxSchemaDepth)`,
      };
    const { value } = frame;
    if (typeof value !== 'object' || value === null) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (key === 'pattern' || key === 'patternProperties') hasPatterns = true;
      stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return { hasPatterns };
}

// Keywords whose value is one schema, an array of schemas, or a map of name → schema (draft-07
// and 2019-09/2020-12 names, since callers mix them). Everything else is data or a constraint.
const ONE = new Set([
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const MANY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const NAMED = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The regexes of a schema (already measured, so its depth is bounded) and the copy ajv compiles:
 * the same schema with {@link REF_STEP_KEYWORD} beside each `$ref` in a schema position.
 */
export function schemaRegexes(schema: Record<string, unknown>): {
  patterns: SchemaPattern[];
  metered: Record<string, unknown>;
} {
  const patterns: SchemaPattern[] = [];
  const visit = (node: unknown, at: SchemaPath): unknown => {
    if (!isObject(node)) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const here = [...at, key];
      if (key === 'pattern' && typeof value === 'string') patterns.push({ at: here, source: value });
      if (key === 'patternProperties' && isObject(value))
        for (const source of Object.keys(value)) patterns.push({ at: [...here, source], source });
      copy[key] = subschemas(key, value, here);
    }
    // 2019-09's `$recursiveRef` and 2020-12's `$dynamicRef` recurse as `$ref` does: metered alike.
    if ([node.$ref, node.$dynamicRef, node.$recursiveRef].some((r) => typeof r === 'string'))
      copy[REF_STEP_KEYWORD] = true;
    return copy;
  };
  const subschemas = (key: string, value: unknown, at: SchemaPath): unknown => {
    if (ONE.has(key)) return visit(value, at);
    if ((MANY.has(key) || key === 'items') && Array.isArray(value))
      return value.map((v, i) => visit(v, [...at, i]));
    if (key === 'items') return visit(value, at);
    // `dependencies` holds schemas and property lists side by side (draft-07).
    if ((NAMED.has(key) || key === 'dependencies') && isObject(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, [...at, k])]));
    return value;
  };
  const metered = visit(schema, []) as Record<string, unknown>;
  return { patterns, metered };
}
