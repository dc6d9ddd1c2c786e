import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const minimal = {
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
};

describe('config defaults: the schema fills every field a file leaves out', () => {
  it('gives a minimal config every section with its defaults, and no auth', () => {
    const config = parseConfig(minimal);
    expect(config).toStrictEqual({
      providers: minimal.providers,
      models: { a: { provider: 'fake', model: 'model-a', aliases: [], timeoutMs: 10_000, routes: [] } },
      pipelines: {},
      breaker: {
        windowMs: 900_000,
        minSamples: 5,
        failureRate: 0.3,
        consecutive429: 2,
        openMs: 900_000,
        recovery: 'window',
        probeIntervalMs: 30_000,
        probeSchedule: [
          { untilMs: 60_000, everyMs: 10_000 },
          { untilMs: 300_000, everyMs: 15_000 },
          { untilMs: 900_000, everyMs: 60_000 },
        ],
        probeLeaseMs: 30_000,
        probeSuccesses: 3,
        rampSteps: [10, 25, 50, 100],
        rampStepMs: 60_000,
      },
      rateLimit: { coolMs: 5_000, readCacheMs: 1_000 },
      router: {
        maxAttempts: 3,
        deadlineMs: 15_000,
        fallbackOnContextLength: false,
        retry: { policy: 'drain', backoffMs: 200, maxRetryAfterMs: 5_000, marginMs: 2_000 },
        selection: { strategy: 'weighted' },
      },
      aws: config.aws,
      schedules: {},
      jobs: { maxReceiveCount: 3, retentionDays: 14, maxQueuedPerKey: 100 },
      limits: {
        maxMessages: 1_000,
        maxOutputTokens: 32_768,
        maxEchoChars: 128,
        maxJsonDepth: 64,
        maxUpstreamBodyBytes: 8_388_608,
        maxUpstreamEventBytes: 1_048_576,
      },
      admission: {
        keys: {},
        defaultKey: {},
        pipelines: {},
        adHocChains: true,
        charsPerToken: 4,
        onStoreFailure: { requests: 'open', tokens: 'open', spend: 'closed' },
      },
      webhooks: { allowHttp: false, maxResponseBytes: 4_096 },
      structuredOutput: {
        repairAttempts: 1,
        repairWith: 'same',
        maxSchemaNodes: 5_000,
        maxSchemaDepth: 32,
        maxPatternChars: 1_000,
        maxPatternProgram: 1_000,
        maxPatternWork: 200_000,
        maxRefSteps: 10_000,
      },
      answerCache: { maxEntries: 1_000, maxBytes: 32_768 },
      metrics: { enabled: false, latencyBucketsMs: [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000] },
      statusPage: { enabled: false, recentRequests: 50, refreshMs: 2_000, console: false },
      cors: { allowOrigins: [], maxAgeSeconds: 600 },
      capacity: {
        shared: false,
        leaseMs: 120_000,
        quotaMinuteMs: 60_000,
        providers: {},
        routes: {},
        quotas: {},
      },
    });
    expect('auth' in config).toBe(false);
  });

  it('keeps what the file says and fills only the rest of a section', () => {
    const config = parseConfig({
      ...minimal,
      router: { deadlineMs: 9_000 },
      breaker: { openMs: 60_000 },
      jobs: { retentionDays: 7 },
    });
    expect(config.router).toMatchObject({
      maxAttempts: 3,
      deadlineMs: 9_000,
      fallbackOnContextLength: false,
    });
    expect(config.router.retry.policy).toBe('drain');
    expect(config.breaker.openMs).toBe(60_000);
    expect(config.breaker.windowMs).toBe(900_000);
    expect(config.jobs).toEqual({ maxReceiveCount: 3, retentionDays: 7, maxQueuedPerKey: 100 });
  });

  it('leaves a pipeline’s own settings unset where the file does, so they keep the top-level values', () => {
    const config = parseConfig({
      ...minimal,
      pipelines: { p: { chain: 'a', breaker: { openMs: 1_000 } } },
    });
    expect(config.pipelines.p).toStrictEqual({
      chain: 'a',
      substitution: 'allow',
      breaker: { openMs: 1_000 },
      streaming: { afterOutput: 'error' },
    });
  });

  it('gives a schedule no spread and no readers, and an auth block no operator keys', () => {
    const config = parseConfig({
      ...minimal,
      pipelines: { p: { chain: 'a' } },
      auth: { keys: {} },
      schedules: {
        nightly: {
          expression: 'rate(1 day)',
          pipeline: 'p',
          jobs: [{ id: 'j', request: { messages: [{ role: 'user', content: 'x' }] } }],
        },
      },
    });
    expect(config.auth).toStrictEqual({ keys: {}, operatorKeys: [] });
    expect(config.schedules.nightly).toMatchObject({ spreadSeconds: 0, readers: [] });
  });

  it('parses its own output to the same config (a parsed config can be written out and read back)', () => {
    const config = parseConfig({ ...minimal, pipelines: { p: { chain: 'a' } }, auth: { keys: {} } });
    expect(parseConfig(JSON.parse(JSON.stringify(config)))).toStrictEqual(config);
  });
});
