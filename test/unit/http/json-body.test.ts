import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { HttpEnv } from '../../../lambda/http/http-env.js';
import { jsonBody } from '../../../lambda/http/json-body.js';

const schema = z.object({
  name: z.string(),
  items: z.array(z.object({ qty: z.number().int().min(1) })).default([]),
});

const app = new Hono<HttpEnv>().post('/things', jsonBody(schema), (c) => {
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
});
