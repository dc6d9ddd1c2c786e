/**
 * Which JSON Schema draft a caller's schema is written in (docs/http-api.md#calling-it):
 * its root `$schema` picks it, and a schema without one is read as draft-07, as before drafts
 * were told apart. The three drafts are the ones ajv ships a build for and the SDKs emit (zod 4's
 * `z.toJSONSchema` writes 2020-12; zod-to-json-schema and Pydantic v1 write draft-07).
 */

/** The drafts the validator compiles. */
export type SchemaDraft = 'draft-07' | '2019-09' | '2020-12';

/** Each draft's meta-schema id, as ajv registers it (so the schema handed to ajv names that id). */
export const DRAFT_META_SCHEMA: Readonly<Record<SchemaDraft, string>> = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

// Callers write the ids with and without the empty fragment, and over http or https: the same
// draft either way.
const normalise = (id: string) =>
  id
    .trim()
    .replace(/#$/, '')
    .replace(/^http:\/\//, 'https://');
const KNOWN = new Map(
  (Object.entries(DRAFT_META_SCHEMA) as Array<[SchemaDraft, string]>).map(([draft, id]) => [
    normalise(id),
    draft,
  ]),
);

/** Shown to the caller when `$schema` names a draft the validator does not compile. */
const SUPPORTED = Object.values(DRAFT_META_SCHEMA).join(', ');

/**
 * The draft a schema's root `$schema` picks: `draft-07` when it has none, or the problem (told as
 * a 400 at `…schema.$schema`) when it names an unknown one.
 */
export function schemaDraft(
  schema: Record<string, unknown>,
): { ok: true; draft: SchemaDraft } | { ok: false; problem: string } {
  const id = schema.$schema;
  if (id === undefined) return { ok: true, draft: 'draft-07' };
  const draft = typeof id === 'string' ? KNOWN.get(normalise(id)) : undefined;
  if (draft !== undefined) return { ok: true, draft };
  if (typeof id !== 'string') return { ok: false, problem: `must be a string naming one of ${SUPPORTED}` };
  return {
    ok: false,
    problem: `'${id.slice(0, 200)}' is not a JSON Schema draft this gateway validates (use one of ${SUPPORTED})`,
  };
}
