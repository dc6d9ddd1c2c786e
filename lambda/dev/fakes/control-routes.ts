/**
 * The HTTP control surface of a fake upstream (`/_fake/*`), so a person can drive a running fake
 * with curl. Bodies are validated with zod; bad input gets a 400 naming the field.
 */
import * as z from 'zod';
import type { Exchange } from './exchange.js';
import type { FakeScript } from './fake-script.js';
import { describeIssues, faultSchema } from './fault.js';

/** Prefix of every control path. Provider paths never start with it. */
export const CONTROL_PREFIX = '/_fake/';

const scriptBodySchema = z.strictObject({
  model: z.string().min(1),
  faults: z.array(faultSchema),
});

const defaultBodySchema = z.strictObject({
  model: z.string().min(1),
  fault: faultSchema,
});

const ENDPOINTS = [
  'POST /_fake/script {"model","faults":[...]}',
  'POST /_fake/default {"model" (or "*"),"fault":{...}}',
  'GET /_fake/requests[?model=...]',
  'POST /_fake/reset',
];

/** Answers one `/_fake/*` request. Control answers are never logged as provider requests. */
export async function handleControl(ex: Exchange, script: FakeScript): Promise<void> {
  const route = `${ex.req.method ?? 'GET'} ${ex.path}`;
  switch (route) {
    case 'POST /_fake/script': {
      const body = await readBody(ex, scriptBodySchema);
      if (!body) return;
      script.script(body.model, body.faults);
      ex.json(200, { ok: true, model: body.model, queued: script.pending()[body.model] ?? 0 });
      return;
    }
    case 'POST /_fake/default': {
      const body = await readBody(ex, defaultBodySchema);
      if (!body) return;
      script.setDefault(body.model, body.fault);
      ex.json(200, { ok: true, model: body.model });
      return;
    }
    case 'GET /_fake/requests': {
      const model = ex.query.get('model');
      const requests = model === null ? script.requests : script.requestsFor(model);
      ex.json(200, { requests, pending: script.pending() });
      return;
    }
    case 'POST /_fake/reset':
      script.reset();
      ex.json(200, { ok: true });
      return;
    default:
      ex.json(404, { error: { message: `Unknown control route ${route}. Try: ${ENDPOINTS.join(' | ')}` } });
  }
}

async function readBody<T>(ex: Exchange, schema: z.ZodType<T>): Promise<T | undefined> {
  const body = await ex.readJson();
  if (!body.ok) {
    const message = body.reason === 'too_large' ? 'Body too large.' : 'Body is not valid JSON.';
    ex.json(400, { error: { message } });
    return undefined;
  }
  const parsed = schema.safeParse(body.value);
  if (!parsed.success) {
    ex.json(400, { error: { message: `Invalid control request: ${describeIssues(parsed.error)}` } });
    return undefined;
  }
  return parsed.data;
}
