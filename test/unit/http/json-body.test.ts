import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { limitsSchema } from '../../../lambda/core/catalog/config-schema.js';
import type { HttpEnv } from '../../../lambda/http/http-env.js';
import { jsonBody } from '../../../lambda/http/json-body.js';

const schema = z.object({
  name: z.string(),
  items: z.array(z.object({ qty: z.number().int().min(1) })).default([]),
  extra: z.unknown().optional(),
});

const bounds = limitsSchema.parse({ maxJsonDepth: 8, maxEchoChars: 20 });
const app = new Hono<HttpEnv>().post('/things', jsonBody(schema, bounds), (c) => {
  const body = c.req.valid('json');
  return c.json({ name: body.name, total: body.items.reduce((n, i) => n + i.qty, 0) });
});

const post = (body: string, contentType = 'application/json') =>
  app.request('/things', { method: 'POST', headers: { 'content-type': contentType }, body });

describe('jsonBody', () => {
  it("hands the handler the schema's output, defaults filled", async () => {
    const res = await post('{"name":"a"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'a', total: 0 });
  });

  it('reads JSON whatever the Content-Type says (curl -d sends a form type)', async () => {
    const res = await post('{"name":"b","items":[{"qty":2},{"qty":3}]}', 'application/x-www-form-urlencoded');
    expect(await res.json()).toEqual({ name: 'b', total: 5 });
  });

  it("answers 400 invalid_json with the parser's own words for a body that is not JSON", async () => {
    const res = await post('{"name":');
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json', param: null });
    expect(error.message).toMatch(/^request body is not valid JSON: .+/);
  });

  it('answers 400 invalid_json for an empty body', async () => {
    const res = await post('');
    expect((await res.json()).error.code).toBe('invalid_json');
  });

  it('names the first invalid field, nested path included, in param and in the message', async () => {
    const res = await post('{"name":"c","items":[{"qty":1},{"qty":0}]}');
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: 'invalid_value', param: 'items[1].qty' });
    expect(error.message).toMatch(/^items\[1\]\.qty: /);
  });

  it('names the body itself, with a null param, when the whole body has the wrong shape', async () => {
    const { error } = await (await post('[1,2]')).json();
    expect(error.param).toBeNull();
    expect(error.message).toMatch(/^body: /);
  });

  it('takes a body nested exactly limits.maxJsonDepth levels deep', async () => {
    // The body is level 1, `extra` opens level 2: seven arrays in all reach level 8.
    const res = await post(`{"name":"d","extra":${'['.repeat(7)}${']'.repeat(7)}}`);
    expect(res.status).toBe(200);
  });

  it('refuses one level more with 400 limit_exceeded, naming the path where it went past the limit', async () => {
    const res = await post(`{"name":"d","extra":${'['.repeat(8)}${']'.repeat(8)}}`);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'limit_exceeded' });
    expect(error.param).toBe('extra[0][0][0][0][0][0][0]');
    expect(error.message).toBe(
      'extra[0][0][0][0][0][0][0]: nested deeper than 8 levels of objects and arrays (limits.maxJsonDepth)',
    );
  });

  it('refuses an over-deep body before parsing it, even when the rest would not parse', async () => {
    const { error } = await (await post(`{"extra":${'['.repeat(100_000)}`)).json();
    expect(error.code).toBe('limit_exceeded');
  });
});
