/**
 * A local failure is never a route's failure (issue 26, item 1). A 25 KB body whose tool schema
 * nests 5,000 levels deep used to make the adapter's serialiser overflow the stack; that was
 * classified `unavailable`, so two such requests opened the shared breaker for every caller,
 * without a byte reaching an upstream. Here the same attack goes through every provider family
 * and both doors, plain and streamed, on the memory store and on a DynamoDB table (dynalite, read
 * back through a second connection, as another process would): the caller gets a 400 naming the
 * field, no breaker moves, the upstream hears nothing, and the route keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerStore } from '../../lambda/core/breaker/breaker-store.js';
import { MAX_JSON_DEPTH } from '../../lambda/core/catalog/config-schema.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { type FakeTokenEndpoint, startFakeTokenEndpoint } from '../helpers/fake-token-endpoint.js';
import {
  addFakeVertex,
  type GatewayHarness,
  memoryJobs,
  startGatewayHarness,
} from '../helpers/gateway-harness.js';

/** `{"a":{"a":…}}`, `levels` objects deep: 5 bytes a level. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const ATTACK_LEVELS = 5_000;

/** Pipeline, model key and raw upstream id of one route per provider family. */
const FAMILIES = [
  { family: 'openai-compatible', pipeline: 'shared-a', upstream: 'model-a' },
  { family: 'bedrock', pipeline: 'shared-br', upstream: 'bedrock-model' },
  { family: 'anthropic', pipeline: 'shared-an', upstream: 'claude-model' },
  { family: 'vertex', pipeline: 'shared-v', upstream: 'google/gemini-v' },
] as const;

const DOORS = [
  {
    door: '/v1/chat/completions',
    body: (pipeline: string, stream: boolean, tools: string) =>
      `{"model":"${pipeline}","stream":${stream},"messages":[{"role":"user","content":"hi"}],` +
      `"tools":[{"type":"function","function":{"name":"lookup","parameters":${tools}}}]}`,
    field: 'tools[0].function.parameters.a.a.a.a…',
    message: (json: { error: { message: string } }) => json.error.message,
  },
  {
    door: '/v1/messages',
    body: (pipeline: string, stream: boolean, tools: string) =>
      `{"model":"${pipeline}","max_tokens":64,"stream":${stream},"messages":[{"role":"user","content":"hi"}],` +
      `"tools":[{"name":"lookup","input_schema":${tools}}]}`,
    field: 'tools[0].input_schema.a.a.a.a.a…',
    message: (json: { type: string; error: { type: string; message: string } }) => {
      expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      return json.error.message;
    },
  },
] as const;

const CASES = FAMILIES.flatMap((route) =>
  DOORS.flatMap((door) => [false, true].map((stream) => ({ ...route, ...door, stream }))),
);

/** The gateway with one pipeline per family (a chain of one model), vertex tokens from a fake endpoint. */
async function startIsolationHarness(
  tokens: FakeTokenEndpoint,
  breakerStore?: BreakerStore,
): Promise<GatewayHarness> {
  const pipelines = Object.fromEntries(
    FAMILIES.map(({ pipeline }) => [pipeline, { chain: pipeline.slice('shared-'.length) }]),
  );
  const h = await startGatewayHarness(pipelines, {
    anthropic: true,
    breakerStore,
    configure: addFakeVertex,
  });
  h.env.VERTEX_SA_JSON = tokens.serviceAccount('gateway');
  return h;
}

const post = (h: GatewayHarness, door: string, body: string) =>
  fetch(`${h.url}${door}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** `GET /v1/breakers?pipeline=…`, as the gateway shows it. */
async function breakersOf(h: GatewayHarness, pipeline: string) {
  const res = await fetch(`${h.url}/v1/breakers?pipeline=${pipeline}`);
  return (
    (await res.json()) as {
      data: Array<{
        state: string;
        windowAttempts: number;
        windowFailures: number;
        routeCoolingUntil: unknown;
      }>;
    }
  ).data;
}

describe.each([{ store: 'memory' as const }, { store: 'dynamodb' as const }])(
  'the nested-JSON attack on the $store breaker store',
  ({ store }) => {
    let h: GatewayHarness;
    let tokens: FakeTokenEndpoint;
    let dynalite: RunningDynalite | undefined;
    let table: Awaited<ReturnType<typeof openBreakerTable>> | undefined;
    /** The table as another gateway process reads it: its own client and store. */
    let otherProcess: BreakerStore | undefined;

    beforeAll(async () => {
      tokens = await startFakeTokenEndpoint();
      if (store === 'dynamodb') {
        dynalite = await startDynalite();
        table = await openBreakerTable(dynalite);
        otherProcess = table.connect().store;
      }
      h = await startIsolationHarness(tokens, table?.store);
    });
    afterAll(async () => {
      await h.close();
      await tokens.close();
      table?.close();
      await dynalite?.stop();
    });

    it.each(CASES)(
      'opens no breaker through $door to the $family family (stream: $stream), and answers the caller 400 naming the field',
      async ({ pipeline, upstream, door, body, field, message, stream }) => {
        const before = await breakersOf(h, pipeline);
        const attack = body(pipeline, stream, nested(ATTACK_LEVELS));
        expect(attack.length).toBeGreaterThan(25_000);
        // Two such requests were enough to open the breaker; send three.
        for (let i = 0; i < 3; i++) {
          const res = await post(h, door, attack);
          expect(res.status).toBe(400);
          const text = message(await res.json());
          expect(text).toBe(
            `${field}: nested deeper than 64 levels of objects and arrays (limits.maxJsonDepth)`,
          );
        }
        expect(h.received(upstream)).toBe(0);
        // Not a sample of any kind: the window is as it was, nothing cools.
        expect(await breakersOf(h, pipeline)).toEqual(before);
        for (const breaker of before) {
          expect(breaker).toMatchObject({ state: 'closed', windowFailures: 0, routeCoolingUntil: null });
        }
        if (otherProcess) {
          const seen = await otherProcess.readPipeline(pipeline, Date.now());
          for (const snapshot of seen.values()) expect(snapshot.openUntil).toBeUndefined();
        }

        // The route still serves everyone, the attacker included.
        const fine = await post(h, door, body(pipeline, stream, '{"type":"object"}'));
        expect(fine.status).toBe(200);
        await fine.text();
        expect(h.received(upstream)).toBe(1);
        const [after] = await breakersOf(h, pipeline);
        expect(after).toMatchObject({ state: 'closed', windowFailures: 0 });
        h.openai.reset();
        h.bedrock.reset();
        h.anthropic.reset();
      },
    );
  },
);

// The cap itself is under test: raise MAX_JSON_DEPTH and these requests go that deep too.
describe(`the highest nesting bound the config accepts (limits.maxJsonDepth: ${MAX_JSON_DEPTH})`, () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        jobs: memoryJobs(),
        // The schema bound at its highest too, so that the schema compiler meets the deepest body.
        configure: (config) =>
          Object.assign(config, {
            limits: { maxJsonDepth: MAX_JSON_DEPTH },
            structuredOutput: { maxSchemaDepth: 1_000 },
          }),
      },
    );
    // JSON, so that the answer to the response_format request passes its (compiled) schema.
    h.openai.setDefault('model-a', { text: '{"ok":true}' });
  });
  afterAll(() => h.close());

  /** The five inputs that answered 500, each nesting the body exactly `depth` levels deep in all. */
  const INPUTS = [
    {
      name: 'a response_format schema',
      door: '/v1/chat/completions',
      // body, response_format, json_schema: 3 levels above the schema
      body: (depth: number) =>
        `{"model":"p","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${nested(depth - 3)}}}}`,
    },
    ...['/v1/chat/completions', '/v1/jobs'].map((door) => ({
      name: `tool parameters on ${door}`,
      door,
      // body, tools, tools[0], function: 4 levels above the parameters
      body: (depth: number) =>
        `{"model":"p","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(depth - 4)}}}]}`,
    })),
    {
      name: 'a tool_use.input on /v1/messages',
      door: '/v1/messages',
      // body, messages, messages[1], content, content[0]: 5 levels above the input
      body: (depth: number) =>
        `{"model":"p","max_tokens":16,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":${nested(depth - 5)}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"y"}]}]}`,
    },
  ];

  it.each(INPUTS)(
    'serves $name nested exactly as deep as the bound, without a 500',
    async ({ door, body }) => {
      const res = await post(h, door, body(MAX_JSON_DEPTH));
      const text = await res.text();
      expect(res.status, text).toBeLessThan(300);
    },
  );

  it('holds /v1/embeddings to the same bound, before it resolves the model', async () => {
    const input = (depth: number) =>
      `{"model":"p","input":${'['.repeat(depth - 1)}"x"${']'.repeat(depth - 1)}}`;
    const over = await post(h, '/v1/embeddings', input(MAX_JSON_DEPTH + 1));
    expect(over.status).toBe(400);
    expect((await over.json()).error).toMatchObject({
      code: 'limit_exceeded',
      param: 'input[0][0][0][0][0][0][0]…',
    });
    const within = await post(h, '/v1/embeddings', input(MAX_JSON_DEPTH));
    expect((await within.json()).error.code).not.toBe('limit_exceeded');
  });

  it.each(INPUTS)('refuses $name one level deeper with 400 limit_exceeded', async ({ door, body }) => {
    const res = await post(h, door, body(MAX_JSON_DEPTH + 1));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  });
});
