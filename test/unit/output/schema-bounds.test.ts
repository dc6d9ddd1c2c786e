import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import {
  createAjvSchemaValidator,
  DEFAULT_SCHEMA_BOUNDS,
} from '../../../lambda/validation/ajv-schema-validator.js';
import { unsupportedConstruct } from '../../../lambda/validation/re2-pattern.js';
import { measureSchema, schemaRegexes } from '../../../lambda/validation/schema-walk.js';

const bounded = (bounds: Partial<typeof DEFAULT_SCHEMA_BOUNDS>) =>
  createAjvSchemaValidator({ bounds: { ...DEFAULT_SCHEMA_BOUNDS, ...bounds } });

async function problemOf(
  schema: Record<string, unknown>,
  bounds: Partial<typeof DEFAULT_SCHEMA_BOUNDS> = {},
) {
  const compiled = await bounded(bounds).compile(schema);
  return compiled.ok ? undefined : { at: compiled.at ?? [], problem: compiled.problem };
}

/** `{ not: { not: … {} } }`: `depth` JSON values deep. */
const nested = (depth: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) schema = { not: schema };
  return schema;
};

describe('patterns the linear-time engine cannot run', () => {
  it.each([
    ['(?=a)b', 'uses a lookahead ((?=)'],
    ['a(?!b)', 'uses a lookahead ((?!)'],
    ['(?<=a)b', 'uses a lookbehind ((?<=)'],
    ['(?<!a)b', 'uses a lookbehind ((?<!)'],
    ['(a)\\1', 'uses a backreference (\\1)'],
    ['(?<n>a)\\k<n>', 'uses a named backreference (\\k<…>)'],
  ])('refuses %s: %s', async (pattern, reason) => {
    const problem = await problemOf({ properties: { x: { pattern } } });
    expect(problem?.at).toEqual(['properties', 'x', 'pattern']);
    expect(problem?.problem).toBe(`${reason}, which the linear-time regex engine (RE2) cannot run`);
  });

  it.each([
    ['an escaped parenthesis', '\\(?=x'],
    ['a class holding (?=', '[(?=]'],
    ['an escaped backslash before a digit', '\\\\1'],
    ['a named group', '(?<year>\\d{4})'],
    ['a non-capturing group', '(?:ab)+'],
  ])('runs %s, which only looks like one', (_name, pattern) => {
    expect(unsupportedConstruct(pattern)).toBeUndefined();
  });

  it('names the RE2 syntax error of a pattern it cannot parse', async () => {
    const problem = await problemOf({ pattern: 'a{1001}' });
    expect(problem?.at).toEqual(['pattern']);
    expect(problem?.problem).toMatch(/^is not a regular expression the gateway can run \(RE2 syntax\): /);
  });

  it('runs JavaScript escapes and classes as JSON Schema patterns mean them', async () => {
    const compiled = await bounded({}).compile({
      type: 'string',
      pattern: '^\\u00e9\\d{2}\\/[\\w.-]+$',
    });
    if (!compiled.ok) throw new Error(compiled.problem);
    expect(compiled.check('é12/a.b-c')).toEqual([]);
    expect(compiled.check('e12/a')).toHaveLength(1);
  });

  it('tests patternProperties keys on RE2 too, and finds a pattern anywhere in the string', async () => {
    const compiled = await bounded({}).compile({
      patternProperties: { '(a|a)*b': { type: 'number' } },
    });
    if (!compiled.ok) throw new Error(compiled.problem);
    expect(compiled.check({ xaab: 1 })).toEqual([]);
    expect(compiled.check({ xaab: 'one' })).toHaveLength(1);
  });
});

describe('where the schema walk looks for regexes', () => {
  it('finds patterns in every subschema position, and none in data or property names', () => {
    const { patterns } = schemaRegexes({
      properties: { pattern: { type: 'string' }, a: { items: [{ pattern: 'i' }] } },
      anyOf: [{ pattern: 'y' }],
      definitions: { d: { patternProperties: { k: { pattern: 'z' } } } },
      enum: [{ pattern: '(?=data)' }],
      default: { pattern: '(?=data)' },
    });
    expect(patterns).toEqual([
      { at: ['properties', 'a', 'items', 0, 'pattern'], source: 'i' },
      { at: ['anyOf', 0, 'pattern'], source: 'y' },
      { at: ['definitions', 'd', 'patternProperties', 'k'], source: 'k' },
      { at: ['definitions', 'd', 'patternProperties', 'k', 'pattern'], source: 'z' },
    ]);
  });
});

describe('schema bounds at their exact limits', () => {
  it('takes a schema of exactly maxSchemaNodes JSON values, and refuses one more', async () => {
    // The object, `enum`'s array and its n - 2 strings.
    const of = (n: number) => ({ enum: Array.from({ length: n - 2 }, (_, i) => `v${i}`) });
    expect(await problemOf(of(10), { maxSchemaNodes: 10 })).toBeUndefined();
    expect(await problemOf(of(11), { maxSchemaNodes: 10 })).toEqual({
      at: [],
      problem: 'has more than 10 JSON values (structuredOutput.maxSchemaNodes)',
    });
  });

  it('takes a schema exactly maxSchemaDepth deep, and refuses one level more, naming it', async () => {
    expect(await problemOf(nested(4), { maxSchemaDepth: 4 })).toBeUndefined();
    expect(await problemOf(nested(5), { maxSchemaDepth: 4 })).toEqual({
      at: ['not', 'not', 'not', 'not'],
      problem: 'nests deeper than 4 levels (structuredOutput.maxSchemaDepth)',
    });
  });

  it('refuses a schema 5000 levels deep by the default depth bound, without overflowing the stack', () => {
    expect(measureSchema(nested(5_000), DEFAULT_SCHEMA_BOUNDS)).toMatchObject({
      problem: 'nests deeper than 32 levels (structuredOutput.maxSchemaDepth)',
    });
  });

  it('takes a pattern of exactly maxPatternChars, and refuses one character more', async () => {
    expect(await problemOf({ pattern: 'a'.repeat(8) }, { maxPatternChars: 8 })).toBeUndefined();
    expect(await problemOf({ pattern: 'a'.repeat(9) }, { maxPatternChars: 8 })).toEqual({
      at: ['pattern'],
      problem: 'is longer than 8 characters (structuredOutput.maxPatternChars)',
    });
  });

  it('takes a pattern whose RE2 program is exactly maxPatternProgram, and refuses one instruction more', async () => {
    const program = RE2JS.compile('^[a-z]{1,20}$').programSize();
    const schema = { pattern: '^[a-z]{1,20}$' };
    expect(await problemOf(schema, { maxPatternProgram: program })).toBeUndefined();
    expect(await problemOf(schema, { maxPatternProgram: program - 1 })).toEqual({
      at: ['pattern'],
      problem: `compiles to an RE2 program of ${program} instructions, more than ${program - 1} (structuredOutput.maxPatternProgram)`,
    });
  });

  it('checks an answer within maxPatternWork, and refuses the answer one unit over it', async () => {
    // Each test costs the pattern's RE2 program size × (characters + 1).
    const cost = RE2JS.compile('^a+$').programSize() * ('aaa'.length + 1);
    const at = await bounded({ maxPatternWork: cost }).compile({ type: 'string', pattern: '^a+$' });
    const over = await bounded({ maxPatternWork: cost - 1 }).compile({ type: 'string', pattern: '^a+$' });
    if (!at.ok || !over.ok) throw new Error('not compiled');
    expect(at.check('aaa')).toEqual([]);
    expect(over.check('aaa')).toEqual([
      `/ the answer could not be checked within structuredOutput.maxPatternWork (${cost - 1})`,
    ]);
  });

  it('stops a recursive schema that branches at every level at maxRefSteps', async () => {
    const schema = {
      anyOf: [
        { type: 'array', items: { $ref: '#' } },
        { type: 'array', items: { $ref: '#' } },
        { type: 'number' },
      ],
    };
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = [deep];
    const compiled = await bounded({ maxRefSteps: 1_000 }).compile(schema);
    if (!compiled.ok) throw new Error(compiled.problem);
    expect(compiled.check(deep)).toEqual([
      '/ the answer could not be checked within structuredOutput.maxRefSteps (1000)',
    ]);
    expect(compiled.check([[1], [[2]]])).toEqual([]);
  });

  it('takes exactly maxRefSteps $ref evaluations, and refuses one more', async () => {
    const schema = { type: 'array', items: { $ref: '#' } };
    const at = await bounded({ maxRefSteps: 3 }).compile(schema);
    const over = await bounded({ maxRefSteps: 2 }).compile(schema);
    if (!at.ok || !over.ok) throw new Error('not compiled');
    // Three nested arrays inside the root: one `$ref` evaluation each.
    expect(at.check([[[[]]]])).toEqual([]);
    expect(over.check([[[[]]]])).toEqual([
      '/ the answer could not be checked within structuredOutput.maxRefSteps (2)',
    ]);
  });
});
