import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

/**
 * The API Lambda's CloudWatch metrics as deployed: EMF records on stdout, one per invocation for a
 * single-attempt request, no warning when there is nothing to publish, and dimension values a
 * caller cannot vary.
 */
const CALLER_KEY = 'sy-caller-key-for-metrics-0123456789';

interface EmfRecord {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [field: string]: unknown;
}

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/switchyard/keys/fake', 'sk-provider-metrics-test', { type: 'SecureString' });
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
        models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/switchyard' },
      },
      table: 'switchyard-metrics-handler-test',
      callerKey: CALLER_KEY,
    };
  });
  // The cold start's lines are not what these tests count.
  await invokeStreaming(api.handler, chatEvent(CALLER_KEY));
});

afterAll(() => api.stop());

/** What the handler wrote during `run`: its lines and the EMF records among them. */
async function linesOf(run: () => Promise<unknown>) {
  const start = api.output.text().length;
  await run();
  const lines = api.output
    .text()
    .slice(start)
    .split('\n')
    .filter((l) => l !== '');
  const records = lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as EmfRecord);
  return { lines, records };
}

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

describe('API Lambda metrics (EMF on stdout)', () => {
  it.each([
    ['a plain', {}],
    ['a streamed', { stream: true }],
  ])(
    'writes %s single-attempt request as two ledger lines and one EMF record, with no warning',
    async (_n, extra) => {
      const { lines, records } = await linesOf(() =>
        invokeStreaming(api.handler, chatEvent(CALLER_KEY, chat('p', extra))),
      );
      expect(records).toHaveLength(1);
      expect(lines).toHaveLength(3);
      expect(records[0]).toMatchObject({
        service: 'switchyard',
        pipeline: 'p',
        model: 'a',
        Attempts: 1,
        Requests: 1,
      });
    },
  );

  it('writes no line at all for a request that makes no metric (a 401)', async () => {
    const { lines } = await linesOf(() =>
      invokeStreaming(api.handler, chatEvent('sy-not-the-key-0123456789abcdef', chat('p'))),
    );
    expect(lines.filter((l) => l.includes('No application metrics'))).toEqual([]);
    expect(lines.filter((l) => l.includes('"_aws"'))).toEqual([]);
  });

  it('gives every ad-hoc chain a caller sends, and every spelling of its model names, one pipeline value', async () => {
    const { records } = await linesOf(async () => {
      for (let i = 1; i <= 25; i += 1) {
        const model = i % 3 === 0 ? `(model-a*${i}|b)` : `(a*${i}|b*${26 - i}), a`;
        await invokeStreaming(api.handler, chatEvent(CALLER_KEY, chat(model)));
      }
    });
    const pipelines = new Set(records.map((r) => r.pipeline));
    const models = new Set(records.map((r) => r.model));
    expect(pipelines).toEqual(new Set(['(ad-hoc)']));
    expect([...models].every((m) => m === 'a' || m === 'b')).toBe(true);
  });
});
