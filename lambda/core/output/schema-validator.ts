/**
 * The port through which the core checks JSON against a caller's JSON Schema. The adapter (ajv,
 * in lambda/validation) compiles each schema once and caches it; the core only sees this shape.
 */

/** Validation errors of one value, each naming where it failed; empty when the value matches. */
export type SchemaCheck = (value: unknown) => string[];

/**
 * A usable schema's check, or what makes it unusable: `at` is the path inside the schema when the
 * problem has one (`['properties', 'x', 'pattern']`).
 */
export type CompiledSchema =
  | { ok: true; check: SchemaCheck }
  | { ok: false; problem: string; at?: ReadonlyArray<string | number> | undefined };

export interface SchemaValidator {
  /** A check for `schema`, or the problem that makes the schema unusable (told to the caller as a 400). */
  compile(schema: Record<string, unknown>): Promise<CompiledSchema>;
}
