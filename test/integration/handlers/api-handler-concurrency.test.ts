import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiBundle, bundleApiHandler } from '../../helpers/api-bundle.js';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { openBreakerTable } from '../../helpers/dynalite.js';
import { invokeStreaming, lambdaContext, type StreamedInvocation } from '../../helpers/lambda-runtime.js';

/**
 * Lambda Managed Instances run many invocations at once in one module instance (each Node worker
 * thread inits the handler once and runs up to PerExecutionEnvironmentMaxConcurrency / threads
 * invocations on it). The handler bundled as `cdk synth` bundles it, on the runtime's
 * multi-concurrent InvokeStore, takes a burst of concurrent invocations of three kinds: a fallback
 * (x answers 500, b answers), a plain answer under a request limit that refuses the last four,
 * and a deadline that runs out on a hanging upstream. Every invocation must get its own answer,
 * headers, ledger lines (tagged with its own Lambda request id), budget decision and breaker writes.
 */
const CALLER_KEY = 'sy-caller-key-for-concurrency-0123456789';
const TABLE = 'switchyard-concurrency-test';
const FALLBACKS = 16;
const LIMITED = 20;
const REFUSED = 4;
const DEADLINES = 4;

let bundle: ApiBundle;
let api: ApiHandlerRig;

interface Sent {
  kind: 'fallback' | 'limited' | 'deadline';
  clientId: string;
  context: Context;
  res: StreamedInvocation;
}
let sent: Sent[] = [];

beforeAll(async () => {
  bundle = await bundleApiHandler();
  api = await startApiHandler(
    ({ ssm, upstream }) => {
      ssm.put('/switchyard/keys/fake', 'sk-provider-concurrency', { type: 'SecureString' });
      upstream.setDefault('*', { latencyMs: 40 });
      upstream.setDefault('model-x', { status: 500, latencyMs: 20 });
      upstream.setDefault('model-h', { hang: true });
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' },
          },
          models: {
            a: { provider: 'fake', model: 'model-a' },
            b: { provider: 'fake', model: 'model-b' },
            x: { provider: 'fake', model: 'model-x' },
            h: { provider: 'fake', model: 'model-h' },
          },
          pipelines: {
            f: { chain: 'x,b', maxAttempts: 2 },
            l: { chain: 'a' },
            d: { chain: 'h', maxAttempts: 1, deadlineMs: 2000 },
          },
          // The window never opens a breaker here: every request must see the same routes.
          breaker: { minSamples: 1000, consecutive429: 1000 },
          admission: { pipelines: { l: { requestsPerMinute: LIMITED } } },
          aws: { ssmPrefix: '/switchyard', allowInsecureBaseURLs: true },
        },
        table: TABLE,
        callerKey: CALLER_KEY,
      };
    },
    { entry: bundle.entry, env: { AWS_LAMBDA_MAX_CONCURRENCY: '64' } },
  );
  const scope = api.scope;
  if (!scope) throw new Error('the rig has no multi-concurrent InvokeStore');
  // One warm invocation first, as the runtime's first request would be: the app is built on it.
  await invokeStreaming(
    api.handler,
    chatEvent(CALLER_KEY, { model: 'b', messages: [{ role: 'user', content: 'warm' }] }),
  );
  const kinds: Sent['kind'][] = [
    ...Array<Sent['kind']>(FALLBACKS).fill('fallback'),
    ...Array<Sent['kind']>(LIMITED + REFUSED).fill('limited'),
    ...Array<Sent['kind']>(DEADLINES).fill('deadline'),
  ];
  const pipelineOf = { fallback: 'f', limited: 'l', deadline: 'd' } as const;
  sent = await Promise.all(
    kinds.map(async (kind, i) => {
      const clientId = `client-${kind}-${i}`;
      const context = lambdaContext();
      const event = chatEvent(CALLER_KEY, {
        model: pipelineOf[kind],
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
      event.headers['x-request-id'] = clientId;
      event.multiValueHeaders['x-request-id'] = [clientId];
      const res = await scope(context, () => invokeStreaming(api.handler, event, { context }));
      return { kind, clientId, context, res };
    }),
  );
}, 120_000);

afterAll(async () => {
  await api?.stop();
  bundle?.remove();
});

type Line = Record<string, unknown>;
const logLines = (): Line[] =>
  api.output
    .text()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"message"'))
    .map((l) => JSON.parse(l) as Line);
const ledgerLines = () => logLines().filter((l) => String(l.message).startsWith('ledger '));

/**
 * The invocations whose store call of `kind` failed, by the Lambda request id on the warning. A
 * store call can time out when dynalite is slow (a loaded machine): by design the request goes on
 * (fails open), so the counts below allow exactly those calls, each traced to its own invocation.
 */
const failedStoreCalls = (message: string, operation?: string): Sent[] =>
  logLines()
    .filter((l) => l.message === message && (operation === undefined || l.operation === operation))
    .map((l) => {
      const owner = sent.find((s) => s.context.awsRequestId === l.function_request_id);
      if (!owner) throw new Error(`a store warning names no invocation: ${String(l.function_request_id)}`);
      return owner;
    });

describe('API Lambda handler: concurrent invocations in one module instance (Managed Instances)', () => {
  it('answers every invocation with its own x-request-id', () => {
    expect(sent).toHaveLength(FALLBACKS + LIMITED + REFUSED + DEADLINES);
    for (const { res, clientId } of sent) expect(res.headers['x-request-id']).toBe(clientId);
  });

  it('falls back x → b in every fallback invocation, and says so in its own headers and body', () => {
    for (const { res } of sent.filter((s) => s.kind === 'fallback')) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-switchyard-route']).toBe('x:500,b:200');
      expect(res.headers['x-switchyard-attempts']).toBe('2');
      expect(JSON.parse(res.body).model).toBe('b');
    }
  });

  it('admits exactly requestsPerMinute of the limited pipeline (plus any whose counter call failed open) and refuses the rest with 429', () => {
    const limited = sent.filter((s) => s.kind === 'limited');
    const admitted = limited.filter((s) => s.res.statusCode === 200);
    const failedOpen = new Set(failedStoreCalls('admission store call failed'));
    for (const owner of failedOpen) expect(owner.kind).toBe('limited');
    const counted = limited.length - failedOpen.size;
    expect(admitted).toHaveLength(Math.min(LIMITED, counted) + failedOpen.size);
    expect(limited.filter((s) => s.res.statusCode === 429)).toHaveLength(limited.length - admitted.length);
    for (const { res } of admitted) expect(res.headers['x-switchyard-route']).toBe('a:200');
  });

  it('runs each deadline on its own clock: the hanging pipeline gets 504, the others are untouched', () => {
    for (const { res } of sent.filter((s) => s.kind === 'deadline')) expect(res.statusCode).toBe(504);
  });

  it('writes one request line per invocation, with its own attempts, each tagged with its own Lambda request id', () => {
    const lines = ledgerLines();
    for (const { kind, res, clientId, context } of sent) {
      if (res.statusCode === 429) continue;
      const requests = lines.filter((l) => l.type === 'request' && l.clientRequestId === clientId);
      expect(requests, clientId).toHaveLength(1);
      const request = requests[0] as Line;
      expect(request.function_request_id).toBe(context.awsRequestId);
      const attempts = lines.filter((l) => l.type === 'attempt' && l.requestId === request.requestId);
      // A deadline may run out before its attempt starts on a loaded machine: then it made none.
      const expected = kind === 'fallback' ? ['x', 'b'] : kind === 'limited' ? ['a'] : ['h'];
      expect(attempts.map((a) => a.model)).toEqual(
        kind === 'deadline' ? expected.slice(0, attempts.length) : expected,
      );
      expect(request.attempts).toBe(attempts.length);
      for (const attempt of attempts) expect(attempt.function_request_id).toBe(context.awsRequestId);
      expect(request.reason).toBe(kind === 'deadline' ? 'deadline' : 'success');
    }
  });

  it('records every attempt in the shared breaker window, but for record calls that failed (each traced to its invocation)', async () => {
    const table = await openBreakerTable(api.dynalite, { tableName: TABLE });
    const window = async (pipeline: string, model: string) => {
      const snapshot = (await table.store.readPipeline(pipeline, Date.now())).get(model);
      const buckets = Object.values(snapshot?.buckets ?? {});
      return {
        attempts: buckets.reduce((n, b) => n + b.attempts, 0),
        failures: buckets.reduce((n, b) => n + b.failures, 0),
      };
    };
    const ledger = ledgerLines().filter((l) => l.type === 'attempt');
    // A failed record is one attempt of one invocation: which one is in the warning, not its model.
    const failedRecords = new Set(
      failedStoreCalls('breaker store failed; routing on what this process knows', 'record'),
    );
    const failed = ledger.filter((l) => {
      const owner = sent.find((s) => s.context.awsRequestId === l.function_request_id);
      return owner !== undefined && failedRecords.has(owner);
    });
    const expected = (pipeline: string, model: string) => {
      const mine = ledger.filter((l) => l.pipeline === pipeline && l.model === model);
      return { attempts: mine.length, failures: mine.filter((l) => l.outcome !== 'ok').length };
    };
    for (const [pipeline, model] of [
      ['f', 'x'],
      ['f', 'b'],
      ['l', 'a'],
      ['d', 'h'],
    ] as const) {
      const got = await window(pipeline, model);
      const want = expected(pipeline, model);
      const lostAtMost = failed.filter((l) => l.pipeline === pipeline && l.model === model).length;
      expect(got.attempts).toBeLessThanOrEqual(want.attempts);
      expect(got.attempts).toBeGreaterThanOrEqual(want.attempts - lostAtMost);
      expect(got.failures).toBeLessThanOrEqual(want.failures);
      expect(got.failures).toBeGreaterThanOrEqual(want.failures - lostAtMost);
    }
    expect(expected('f', 'x')).toEqual({ attempts: FALLBACKS, failures: FALLBACKS });
  });
});
