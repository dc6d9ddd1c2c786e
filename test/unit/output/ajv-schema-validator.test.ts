import { describe, expect, it } from 'vitest';
import { createAjvSchemaValidator } from '../../../lambda/validation/ajv-schema-validator.js';

describe('the ajv schema validator', () => {
  it('compiles a schema once: the same schema (a new object each request) finds the cached check', async () => {
    const validator = createAjvSchemaValidator();
    const first = await validator.compile({ type: 'object', properties: { a: { type: 'integer' } } });
    const second = await validator.compile({ type: 'object', properties: { a: { type: 'integer' } } });
    expect(second).toBe(first);
    expect(validator.size()).toBe(1);
  });

  it('keeps at most its limit of compiled schemas, forgetting the oldest', async () => {
    const validator = createAjvSchemaValidator({ cacheLimit: 2 });
    const a = await validator.compile({ const: 'a' });
    await validator.compile({ const: 'b' });
    await validator.compile({ const: 'c' });
    expect(validator.size()).toBe(2);
    expect(await validator.compile({ const: 'a' })).not.toBe(a);
  });

  it('names the problem of a schema it cannot use', async () => {
    const compiled = await createAjvSchemaValidator().compile({ type: 'objekt' });
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? '' : compiled.problem).toContain(
      'schema is invalid: data/type must be equal to one of the allowed values',
    );
  });

  it('refuses a reference it cannot resolve', async () => {
    const compiled = await createAjvSchemaValidator().compile({ $ref: 'https://example.com/other.json' });
    expect(compiled.ok ? '' : compiled.problem).toContain("can't resolve reference");
  });

  it('compiles two different schemas with the same $id (callers do not share ids)', async () => {
    const validator = createAjvSchemaValidator();
    const one = await validator.compile({ $id: 'https://x.test/s', type: 'string' });
    const two = await validator.compile({ $id: 'https://x.test/s', type: 'number' });
    expect(one.ok && two.ok).toBe(true);
    expect(two.ok ? two.check(3) : ['not compiled']).toEqual([]);
  });

  it('ignores unknown keywords and formats instead of failing the request', async () => {
    const compiled = await createAjvSchemaValidator().compile({
      type: 'string',
      format: 'date-time',
      'x-ui': 1,
    });
    expect(compiled.ok ? compiled.check('not a date') : ['not compiled']).toEqual([]);
  });
});
