import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../../lambda/dev/fakes/fault.js';
import { type ApiHandlerRig, bearer, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming, lambdaContext } from '../../helpers/lambda-runtime.js';
import { type RecordedCall, WRITE_OPERATIONS } from '../../helpers/recording-dynamodb-proxy.js';

/**
 * Lambda freezes the container once an invocation's response has ended: a DynamoDB write still
 * under way then stalls until the next invocation thaws it, and times out there. So every write of
 * a request (breaker sample, account-route cooling, admission settlement, answer cache) must be
 * answered before the response ends. A proxy in front of dynalite puts every call in one order
 * with the end of each response.
 */
const CALLER_KEY = 'sy-caller-key-for-writes-0123456789';
const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };
// Long enough for a write started at the response's end to reach the proxy.
const AFTER_END_MS = 400;
const LIMITS = { requestsPerMinute: 10_000, tokensPerMinute: 10_000_000, usdPerDay: 100 };

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(
    ({ ssm, upstream }) => {
      ssm.put('/switchyard/keys/fake', 'sk-provider-writes-test', { type: 'SecureString' });
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' },
          },
          models: {
            a: { provider: 'fake', model: 'model-a', price: PRICE },
            b: { provider: 'fake', model: 'model-b', price: PRICE },
            e1: { provider: 'fake', model: 'model-e1', dimensions: 8, price: PRICE },
          },
          // `p` and `m` are admitted (a settlement to write); `s` is not: its writes are the breaker's alone.
          pipelines: {
            p: { chain: 'a,b', lastResort: { type: 'cache' } },
            m: { chain: 'a' },
            s: { chain: 'a' },
            e: { chain: 'e1' },
          },
          admission: { pipelines: { p: LIMITS, m: LIMITS, e: LIMITS } },
          aws: { ssmPrefix: '/switchyard' },
        },
        table: 'switchyard-writes-handler-test',
        callerKey: CALLER_KEY,
      };
    },
    { recordDynamoDb: true },
  );
});

afterAll(() => api.stop());

beforeEach(() => {
  api.upstream.reset();
  api.upstream.setDefault('model-e1', { dimensions: 8 });
});

/** Invokes once, waits a while after the response ended, and returns the calls of this invocation and the end's place. */
async function invoke(path: string, body: unknown) {
  const proxy = api.dynamodb;
  if (!proxy) throw new Error('the rig records no DynamoDB calls');
  const first = proxy.calls.length;
  let endedAt = Number.POSITIVE_INFINITY;
  const res = await invokeStreaming(
    api.handler,
    restEvent({ method: 'POST', path, body, headers: bearer(CALLER_KEY) }),
    {
      onResponseEnd: () => {
        endedAt = proxy.mark();
      },
    },
  );
  await new Promise((r) => setTimeout(r, AFTER_END_MS));
  const writes = proxy.calls.slice(first).filter((c) => WRITE_OPERATIONS.has(c.operation));
  return { res, writes, endedAt };
}

const late = (writes: readonly RecordedCall[], endedAt: number) =>
  writes.filter((w) => w.arrived > endedAt || w.answered === undefined || w.answered > endedAt);

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

interface Case {
  name: string;
  path: string;
  body: unknown;
  faults: Record<string, Fault[]>;
  status: number;
}

const CHAT = '/v1/chat/completions';
const stream = { stream: true };
const down = (status: number): Record<string, Fault[]> => ({
  'model-a': [{ status }, { status }, { status }],
});

const CASES: Case[] = [
  { name: 'a plain answer', path: CHAT, body: chat('p'), faults: {}, status: 200 },
  { name: 'a stream', path: CHAT, body: chat('s', stream), faults: {}, status: 200 },
  { name: 'an admitted stream', path: CHAT, body: chat('m', stream), faults: {}, status: 200 },
  {
    name: 'a plain request whose routes all fail',
    path: CHAT,
    body: chat('m'),
    faults: down(429),
    status: 429,
  },
  {
    name: 'a stream the upstream cuts after output started',
    path: CHAT,
    body: chat('m', stream),
    faults: { 'model-a': [{ text: 'one two three four', cutAfterChunks: 2 }] },
    status: 200,
  },
  {
    name: 'a stream whose routes all fail before output',
    path: CHAT,
    body: chat('m', stream),
    faults: down(503),
    status: 503,
  },
  {
    name: 'a Messages stream',
    path: '/v1/messages',
    body: { ...chat('m', stream), max_tokens: 50 },
    faults: {},
    status: 200,
  },
  {
    name: 'a Messages answer',
    path: '/v1/messages',
    body: { ...chat('p'), max_tokens: 50 },
    faults: {},
    status: 200,
  },
  {
    name: 'an embedding',
    path: '/v1/embeddings',
    body: { model: 'e', input: 'hello' },
    faults: {},
    status: 200,
  },
];

describe('API Lambda handler: every write of a request is answered before its response ends', () => {
  it.each(CASES)(
    'writes nothing after the response of $name has ended',
    async ({ path, body, faults, status }) => {
      for (const [model, list] of Object.entries(faults)) api.upstream.script(model, list);
      const { res, writes, endedAt } = await invoke(path, body);
      expect(res.statusCode).toBe(status);
      // A request that writes nothing would prove nothing.
      expect(writes.length).toBeGreaterThan(0);
      expect(late(writes, endedAt)).toEqual([]);
    },
  );

  it('writes nothing after the invocation of a stream whose caller went away mid-stream has returned', async () => {
    const proxy = api.dynamodb;
    if (!proxy) throw new Error('the rig records no DynamoDB calls');
    api.upstream.script('model-a', [{ text: 'one two three four five six', chunkDelayMs: 200 }]);
    const first = proxy.calls.length;
    const responseStream = new PassThrough();
    // What the runtime's stream does when API Gateway drops the connection: here, at the first chunk.
    responseStream.once('data', () => responseStream.destroy());
    const handler = api.handler as (e: unknown, s: PassThrough, c: unknown) => Promise<void>;
    const event = restEvent({
      method: 'POST',
      path: CHAT,
      body: chat('m', stream),
      headers: bearer(CALLER_KEY),
    });
    await handler(event, responseStream, lambdaContext());
    const returnedAt = proxy.mark();
    await new Promise((r) => setTimeout(r, AFTER_END_MS));
    const writes = proxy.calls.slice(first).filter((c) => WRITE_OPERATIONS.has(c.operation));
    expect(writes.length).toBeGreaterThan(0);
    expect(late(writes, returnedAt)).toEqual([]);
    expect(api.output.text()).toContain('"reason":"cancelled"');
  });
});
