import { describe, expect, it } from 'vitest';
import { checkJsonAnswer, stripJsonFence } from '../../../lambda/core/output/json-answer.js';
import { createAjvSchemaValidator } from '../../../lambda/validation/ajv-schema-validator.js';

const compiled = await createAjvSchemaValidator().compile({
  type: 'object',
  properties: { answer: { type: 'string' }, score: { type: 'number' } },
  required: ['answer'],
  additionalProperties: false,
});
if (!compiled.ok) throw new Error(compiled.problem);
const schema = { type: 'json_schema' as const, check: compiled.check };

describe('stripJsonFence', () => {
  it.each([
    ['```json\n{"a":1}\n```', '{"a":1}'],
    ['```\n{"a":1}\n```', '{"a":1}'],
    ['  ```JSON\r\n{"a":1}\r\n```  \n', '{"a":1}'],
    ['```{"a":1}```', '{"a":1}'],
    ['{"a":1}', '{"a":1}'],
    ['  {"a":1}\n', '{"a":1}'],
  ])('%j → %j', (text, inside) => {
    expect(stripJsonFence(text)).toBe(inside);
  });

  it('leaves text with something before or after the fence as it is (then it is not JSON)', async () => {
    expect(stripJsonFence('Here you go:\n```json\n{"a":1}\n```')).toBe('Here you go:\n```json\n{"a":1}\n```');
    expect(stripJsonFence('```json\n{"a":1}\n``` done')).toBe('```json\n{"a":1}\n``` done');
  });

  it('reads a word glued to the fence as content, not as a language tag', async () => {
    expect(stripJsonFence('```true```')).toBe('true');
  });

  it.each([
    ['```', '```'],
    ['`````', '`````'],
    ['``````', ''],
    ['```json ```', ''],
    ['```json\n{"a":"```"}\n```', '{"a":"```"}'],
  ])('reads the fence edge %j as %j', (text, inside) => {
    expect(stripJsonFence(text)).toBe(inside);
  });

  it('strips in one pass an opening fence followed by 100,000 spaces and no closing fence', () => {
    // The former regex backtracked on this for minutes: the test's timeout is the assertion.
    const text = `\`\`\`${' '.repeat(100_000)}x`;
    expect(stripJsonFence(text)).toBe(text);
  });
});

describe('checkJsonAnswer', () => {
  it('passes a fenced answer that matches and hands back the JSON without the fence', async () => {
    expect(checkJsonAnswer('```json\n{"answer":"yes"}\n```', schema)).toEqual({
      ok: true,
      content: '{"answer":"yes"}',
    });
  });

  it('names the JSON path of each schema error, and an extra key by name', async () => {
    expect(checkJsonAnswer('{"response":"yes","score":"high"}', schema)).toEqual({
      ok: false,
      errors: [
        "/ must have required property 'answer'",
        "/ must NOT have additional properties: 'response'",
        '/score must be number',
      ],
    });
  });

  it('refuses text that is not JSON without quoting it', async () => {
    const checked = checkJsonAnswer('Sure! The answer is yes.', schema);
    expect(checked).toEqual({ ok: false, errors: ['the answer is not valid JSON'] });
  });

  it('refuses an empty answer and a null one', async () => {
    expect(checkJsonAnswer('  ', schema)).toEqual({ ok: false, errors: ['the answer is empty'] });
    expect(checkJsonAnswer(null, schema)).toEqual({ ok: false, errors: ['the answer is empty'] });
  });

  it('json_object: any object passes, an array or a string does not', async () => {
    const object = { type: 'json_object' as const };
    expect(checkJsonAnswer('{"x":[1]}', object)).toEqual({ ok: true, content: '{"x":[1]}' });
    expect(checkJsonAnswer('[1,2]', object)).toEqual({
      ok: false,
      errors: ['the answer is not a JSON object'],
    });
    expect(checkJsonAnswer('"text"', object)).toEqual({
      ok: false,
      errors: ['the answer is not a JSON object'],
    });
  });

  it('reports at most 10 errors', async () => {
    const many = await createAjvSchemaValidator().compile({
      type: 'object',
      required: Array.from({ length: 12 }, (_, i) => `k${i}`),
    });
    if (!many.ok) throw new Error(many.problem);
    const checked = checkJsonAnswer('{}', { type: 'json_schema', check: many.check });
    expect(checked.ok ? [] : checked.errors).toHaveLength(10);
  });
});
