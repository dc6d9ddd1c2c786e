import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../../lambda/aws/powertools-evidence.js';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-alarm-metrics-0123';
const CACHE_MS = 300;

let api: ApiHandlerRig;
beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/switchyard/keys/fake', 'sk-fake', { type: 'SecureString' });
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
        models: { a: { provider: 'fake', model: 'model-a' } },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
      },
      table: 'switchyard-breakers-alarm-metrics',
      callerKey: CALLER_KEY,
    };
  });
}, 60_000);
afterAll(() => api.stop());

/** The dimension names (sorted) of every series of `metric` in the EMF records the handler wrote. */
function emfDimensions(metric: string): string[][] {
  return api.output
    .text()
    .split('\n')
    .filter((line) => line.includes('"_aws"') && line.includes(`"${metric}"`))
    .flatMap((line) => {
      const record = JSON.parse(line) as {
        _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      };
      return record._aws.CloudWatchMetrics.filter((d) => d.Metrics.some((m) => m.Name === metric)).map((d) =>
        [...(d.Dimensions[0] ?? [])].sort(),
      );
    });
}

describe('API Lambda: the failures the store alarms count', () => {
  it('counts a failed SSM snapshot read once, service-wide, while the last good snapshot serves', async () => {
    expect((await invokeStreaming(api.handler, chatEvent(CALLER_KEY))).statusCode).toBe(200);
    expect(emfDimensions(METRICS.ssmSnapshotFailures)).toEqual([]);
    // Enough failures for every SDK retry of one read; the next read waits out a 1 s backoff.
    api.ssm.fail('GetParametersByPath', { type: 'ThrottlingException', message: 'Rate exceeded' }, 10);
    await new Promise((r) => setTimeout(r, CACHE_MS * 1.2 + 100));
    expect((await invokeStreaming(api.handler, chatEvent(CALLER_KEY))).statusCode).toBe(200);
    // A due refresh may run behind the request (the container kicks it): wait for its log line.
    for (let i = 0; i < 50 && !api.output.text().includes('SSM parameters unreadable'); i += 1)
      await new Promise((r) => setTimeout(r, 20));
    expect(api.output.text()).toContain('SSM parameters unreadable; serving the last good snapshot');
    expect(emfDimensions(METRICS.ssmSnapshotFailures)).toEqual([['service']]);
    api.ssm.fail('GetParametersByPath', { type: 'none' }, 0);
  });

  it('counts failed breaker store calls, per service and per operation, while requests still succeed', async () => {
    await api.dynalite.stop();
    const res = await invokeStreaming(api.handler, chatEvent(CALLER_KEY));
    expect(res.statusCode).toBe(200);
    const dims = emfDimensions(METRICS.breakerStoreFailures);
    expect(dims).toContainEqual(['service']);
    expect(dims).toContainEqual(['operation', 'service']);
    expect(api.output.text()).toContain('breaker store failed');
  }, 30_000);
});
