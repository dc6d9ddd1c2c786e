import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createAjvSchemaValidator } from '../../../lambda/validation/ajv-schema-validator.js';

const checkOf = async (schema: Record<string, unknown>) => {
  const compiled = await createAjvSchemaValidator().compile(schema);
  if (!compiled.ok) throw new Error(`not compiled: ${compiled.problem}`);
  return compiled.check;
};

describe('JSON Schema drafts picked by $schema', () => {
  it('checks a 2020-12 prefixItems tuple (position by position, nothing after it)', async () => {
    const check = await checkOf({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    });
    expect(check(['a', 1])).toEqual([]);
    expect(check([1, 'a'])).toEqual(['/0 must be string', '/1 must be integer']);
    expect(check(['a', 1, 'extra'])).toEqual(['/ must NOT have more than 2 items']);
  });

  it('checks a 2019-09 dependentRequired (one key asks for another)', async () => {
    const check = await checkOf({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      dependentRequired: { card: ['billing'] },
    });
    expect(check({ card: 1, billing: 2 })).toEqual([]);
    expect(check({ billing: 2 })).toEqual([]);
    expect(check({ card: 1 })).toEqual(['/ must have property billing when property card is present']);
  });

  it('reads a schema without $schema as draft-07, as before (array items apply to every item)', async () => {
    const check = await checkOf({ type: 'array', items: [{ type: 'string' }], additionalItems: false });
    expect(check(['a'])).toEqual([]);
    expect(check(['a', 'b'])).toEqual(['/ must NOT have more than 1 items']);
  });

  it('reads draft-07 named with or without the fragment, over http or https', async () => {
    for (const id of [
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-07/schema',
      'https://json-schema.org/draft-07/schema#',
    ]) {
      const check = await checkOf({ $schema: id, type: 'integer' });
      expect(check('x')).toEqual(['/ must be integer']);
    }
  });

  it('checks the 2020-12 schema zod 4 emits (LangChain withStructuredOutput sends it)', async () => {
    const schema = z.toJSONSchema(z.object({ city: z.string(), days: z.array(z.int()).min(1) })) as Record<
      string,
      unknown
    >;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const check = await checkOf(schema);
    expect(check({ city: 'Oslo', days: [1] })).toEqual([]);
    expect(check({ city: 'Oslo', days: [] })).toEqual(['/days must NOT have fewer than 1 items']);
  });

  it('refuses an unknown $schema at its own path, naming it and the drafts it could be', async () => {
    const compiled = await createAjvSchemaValidator().compile({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
    });
    expect(compiled).toEqual({
      ok: false,
      at: ['$schema'],
      problem:
        "'http://json-schema.org/draft-04/schema#' is not a JSON Schema draft this gateway validates (use one of http://json-schema.org/draft-07/schema#, https://json-schema.org/draft/2019-09/schema, https://json-schema.org/draft/2020-12/schema)",
    });
  });

  it('refuses a $schema that is not a string', async () => {
    const compiled = await createAjvSchemaValidator().compile({ $schema: 7 });
    expect(compiled.ok ? '' : compiled.problem).toMatch(/^must be a string naming one of /);
  });

  it('runs 2020-12 patterns on RE2 and keeps the pattern bound', async () => {
    const validator = createAjvSchemaValidator();
    const draft = { $schema: 'https://json-schema.org/draft/2020-12/schema' };
    const lookahead = await validator.compile({ ...draft, type: 'string', pattern: '^(?=a)a$' });
    expect(lookahead).toMatchObject({ ok: false, at: ['pattern'] });
    const long = await validator.compile({ ...draft, prefixItems: [{ pattern: 'a'.repeat(10_000) }] });
    expect(long).toMatchObject({ ok: false, at: ['prefixItems', 0, 'pattern'] });
    const fine = await validator.compile({ ...draft, type: 'string', pattern: '^a+$' });
    expect(fine.ok ? fine.check('b') : ['not compiled']).toEqual(['/ must match pattern "^a+$"']);
  });

  it('meters a 2020-12 $dynamicRef recursion like a $ref', async () => {
    const validator = createAjvSchemaValidator({
      bounds: {
        ...(await import('../../../lambda/validation/ajv-schema-validator.js')).DEFAULT_SCHEMA_BOUNDS,
        maxRefSteps: 3,
      },
    });
    const compiled = await validator.compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { next: { $dynamicRef: '#node' } },
    });
    const deep = { next: { next: { next: { next: { next: {} } } } } };
    expect(compiled.ok ? compiled.check(deep) : ['not compiled']).toEqual([
      expect.stringContaining('structuredOutput.maxRefSteps'),
    ]);
  });
});
