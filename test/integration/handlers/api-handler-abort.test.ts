import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { lambdaContext } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-abort-tests-0123456789';
const event = (body: unknown) => chatEvent(CALLER_KEY, body);

type StreamingHandler = (event: unknown, stream: PassThrough, context: unknown) => Promise<void>;

let api: ApiHandlerRig;
let handler: StreamingHandler;

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/abort/keys/fake', 'sk-provider-abort-0123456789abcdef', { type: 'SecureString' });
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/abort/keys/fake' } },
        // Long enough that only the caller's disconnect can end the attempt within the test.
        models: { a: { provider: 'fake', model: 'model-a', timeoutMs: 15_000 } },
        pipelines: { p: { chain: 'a', deadlineMs: 15_000 } },
        aws: { ssmPrefix: '/abort', chainCacheMs: 300 },
      },
      table: 'switchyard-breakers-abort-test',
      callerKey: CALLER_KEY,
    };
  });
  handler = api.handler as StreamingHandler;
});

afterAll(() => api.stop());

beforeEach(() => api.upstream.reset());

/** Resolves once `condition` holds (polled every 20 ms). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

/** The reason of the last `ledger request` line logged. */
function lastRequestReason(): string | undefined {
  const lines = api.output
    .text()
    .split('\n')
    .filter((l) => l.includes('"ledger request"'));
  return lines.length ? JSON.parse(lines.at(-1) ?? '{}').reason : undefined;
}

describe('API Lambda handler: the caller goes away', () => {
  it.each([
    ['a plain answer still waiting on the upstream', false],
    ['a stream before its first byte', true],
  ])('aborts the upstream call of %s when the response stream closes', async (_name, stream) => {
    api.upstream.script('model-a', [{ hang: true }]);
    const responseStream = new PassThrough();
    const invocation = handler(
      event({ model: 'p', stream, messages: [{ role: 'user', content: 'hi' }] }),
      responseStream,
      lambdaContext(),
    );
    await until(() => api.upstream.requestsFor('model-a').length === 1);

    responseStream.destroy(); // what the runtime's stream does when API Gateway drops the connection
    await invocation; // ends without an error: nobody is left to answer

    await until(() => api.upstream.requestsFor('model-a')[0]?.aborted === true);
    expect(api.upstream.requestsFor('model-a')).toHaveLength(1);
    expect(lastRequestReason()).toBe('cancelled');
  });

  it('leaves a request whose stream stays open alone, and writes its answer', async () => {
    const responseStream = new PassThrough();
    const chunks: Buffer[] = [];
    responseStream.on('data', (c: Buffer) => chunks.push(c));
    await handler(
      event({ model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
      responseStream,
      lambdaContext(),
    );
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).choices[0].message.content).toBe(
      'Hello from model-a.',
    );
    expect(api.upstream.requestsFor('model-a')[0]?.aborted).toBe(false);
    expect(lastRequestReason()).toBe('success');
  });
});
