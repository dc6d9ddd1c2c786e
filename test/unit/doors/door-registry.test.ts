/**
 * A front door is one folder plus one registry line: a door written here, outside the app, gets
 * the request id, body limit, request lifecycle (bounds, target, admission), routing, evidence
 * headers and its own error envelope by being listed, with no edit anywhere else.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import type { ChatResult } from '../../../lambda/core/chat/chat-model.js';
import { chatDemand } from '../../../lambda/core/lifecycle/request-demand.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import type { RouteSuccess } from '../../../lambda/core/router/route-types.js';
import { DOORS } from '../../../lambda/doors/doors.js';
import { answerCall } from '../../../lambda/doors/shared/chat-call.js';
import { admitFor, type Door, type DoorDeps } from '../../../lambda/doors/shared/door.js';
import { neutralBody, resolvesTarget, withinBounds } from '../../../lambda/doors/shared/door-lifecycle.js';
import { createHttpApp } from '../../../lambda/http/create-http-app.js';
import type { HttpEnv } from '../../../lambda/http/http-env.js';
import { jsonBody } from '../../../lambda/http/json-body.js';
import { routeHeaders } from '../../../lambda/http/route-headers.js';
import { createJobHarness } from '../../helpers/job-harness.js';

const echoBody = z.object({
  model: z.string().optional(),
  say: z.string(),
  limit: z.number().int().optional(),
});

/** Its own envelope: `{problem: message}`, rewritten from the app's default one. */
const echoErrors: MiddlewareHandler<HttpEnv> = async (c, next) => {
  await next();
  if (c.res.status < 400) return;
  const body = (await c.res.clone().json()) as { error: { message: string } };
  c.res = Response.json({ problem: body.error.message }, { status: c.res.status });
};

const echoDoor: Door = {
  path: '/v1/echo',
  errors: echoErrors,
  app(deps: DoorDeps) {
    const door = new Hono<HttpEnv>();
    door.post(
      '/',
      jsonBody(echoBody, deps.bounds),
      neutralBody((body: z.infer<typeof echoBody>) => ({
        model: body.model,
        demand: chatDemand(
          1,
          body.say.length,
          body.limit ? { tokens: body.limit, param: 'limit' } : undefined,
        ),
        request: { messages: [{ role: 'user' as const, content: body.say }] },
        streamed: false,
      })),
      withinBounds(deps.lifecycle, 'chat'),
      resolvesTarget(deps.lifecycle, 'chat'),
      admitFor(deps, 'chat'),
      (c) => {
        const call = {
          target: c.var.target,
          chat: c.var.neutral.request,
          requestId: c.var.requestId,
          clientRequestId: c.var.clientRequestId,
          signal: c.req.raw.signal,
        };
        const render = (result: RouteSuccess<ChatResult>) =>
          Response.json({ echoed: result.value.content }, { headers: routeHeaders(result) });
        return answerCall(deps.gateway, call, render);
      },
    );
    return door;
  },
};

const h = createJobHarness();
const app = createHttpApp({
  gateway: h.gateway,
  catalog: createCatalog(h.config),
  log: silentLogger,
  doors: [...DOORS, echoDoor],
});
const post = (path: string, body: unknown) =>
  app.request(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

describe('a front door from outside the app', () => {
  it('routes through the lifecycle and answers in its own shape with the evidence headers', async () => {
    const res = await post('/v1/echo', { model: 'p', say: 'hi' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echoed: expect.stringMatching(/^answer from /) });
    expect(res.headers.get('x-switchyard-attempts')).toBe('1');
    expect(res.headers.get('x-switchyard-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("words the lifecycle's refusals in its own envelope, naming its own field", async () => {
    const unknown = await post('/v1/echo', { model: 'nope', say: 'hi' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ problem: expect.stringContaining('nope') });
    const over = await post('/v1/echo', { model: 'p', say: 'hi', limit: 1_000_000 });
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({
      problem: expect.stringMatching(/^limit: at most \d+ \(the gateway limit\), got 1000000$/),
    });
  });

  it('leaves the registered doors as they were', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'p',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ object: 'chat.completion' });
  });
});
