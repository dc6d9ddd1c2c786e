import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const base = {
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
};
const withAws = (aws: unknown) => parseConfig({ ...base, aws });

describe('config: the aws section (alarm e-mail, capacity, streaming)', () => {
  it('fills every default of a section left out, and leaves unset only what has no fixed default', () => {
    const expected = {
      production: false,
      allowInsecureBaseURLs: false,
      apiGatewayLogs: false,
      ssmPrefix: '/switchyard',
      chainCacheMs: 30_000,
      callerKeysMaxStaleMs: 300_000,
      providerKeyCacheMs: 300_000,
      callerKeyCacheMs: 30_000,
      callerKeyMissCacheMs: 5_000,
      keyReadBudgetMs: 3_000,
      capacity: { workerMaxConcurrency: 10, stageRateLimit: 500 },
      streaming: { integrationTimeoutSeconds: 29 },
      tracing: { execWrapper: '/opt/otel-handler' },
      breakerState: 'regional',
      regionalModels: {},
      compute: 'on-demand',
      // The API's memory has no fixed default: it follows the compute mode (1,024 MB on demand, 2 GiB per vCPU on Managed Instances).
      memoryMb: { worker: 1024, scheduler: 512 },
      managedInstances: {
        instanceTypes: ['m7g.large', 'm7g.xlarge'],
        maxVCpuCount: 48,
        memoryGiBPerVCpu: 2,
        minExecutionEnvironments: 2,
        perExecutionEnvironmentMaxConcurrency: 256,
        targetCpuPercent: 60,
      },
      alarms: {
        minRequests: 20,
        exhaustedPercent: 1,
        api5xxPercent: 5,
        budgetWarningPercent: 80,
        oldestJobAgeSeconds: 1800,
      },
    };
    expect(parseConfig(base).aws).toStrictEqual(expected);
    expect(withAws({}).aws).toStrictEqual(expected);
    expect(withAws({ capacity: {}, streaming: {}, tracing: {}, alarms: {} }).aws).toStrictEqual(expected);
  });

  it('accepts an alarm e-mail, capacity and streaming settings as given', () => {
    const aws = {
      alarmEmail: 'oncall@example.com',
      capacity: {
        apiReservedConcurrency: 100,
        workerMaxConcurrency: 2,
        stageRateLimit: 10,
        stageBurstLimit: 0,
      },
      streaming: { integrationTimeoutSeconds: 900, functionTimeoutSeconds: 900 },
    };
    expect(withAws(aws).aws).toMatchObject(aws);
  });

  it.each([
    ['alarmEmail', { alarmEmail: 'not-an-address' }, /aws\.alarmEmail/],
    [
      'workerMaxConcurrency below SQS’s minimum of 2',
      { capacity: { workerMaxConcurrency: 1 } },
      /aws\.capacity\.workerMaxConcurrency/,
    ],
    [
      'workerMaxConcurrency above 1000',
      { capacity: { workerMaxConcurrency: 1001 } },
      /aws\.capacity\.workerMaxConcurrency/,
    ],
    [
      'apiReservedConcurrency of 0',
      { capacity: { apiReservedConcurrency: 0 } },
      /aws\.capacity\.apiReservedConcurrency/,
    ],
    [
      'an integration timeout over 900 s',
      { streaming: { integrationTimeoutSeconds: 901 } },
      /aws\.streaming\.integrationTimeoutSeconds/,
    ],
    ['an unknown capacity field', { capacity: { reserved: 5 } }, /aws\.capacity/],
    ['a minimum request count of 0', { alarms: { minRequests: 0 } }, /aws\.alarms\.minRequests/],
    ['an exhausted rate of 0 %', { alarms: { exhaustedPercent: 0 } }, /aws\.alarms\.exhaustedPercent/],
    [
      'a budget warning over 100 %',
      { alarms: { budgetWarningPercent: 100.5 } },
      /aws\.alarms\.budgetWarningPercent/,
    ],
    ['a fractional latency threshold', { alarms: { apiLatencyP99Ms: 1.5 } }, /aws\.alarms\.apiLatencyP99Ms/],
    ['an unknown alarms field', { alarms: { budgetReachedPercent: 100 } }, /aws\.alarms/],
  ])('rejects %s, naming the field', (_name, aws, field) => {
    expect(() => withAws(aws)).toThrow(field);
  });

  it('rejects a function timeout shorter than the integration timeout, and accepts an equal one', () => {
    expect(() =>
      withAws({ streaming: { integrationTimeoutSeconds: 120, functionTimeoutSeconds: 119 } }),
    ).toThrow(/aws\.streaming\.functionTimeoutSeconds: must be at least integrationTimeoutSeconds/);
    expect(() =>
      withAws({ streaming: { integrationTimeoutSeconds: 120, functionTimeoutSeconds: 120 } }),
    ).not.toThrow();
  });

  it('measures a lone function timeout against the default 29 s integration timeout', () => {
    expect(() => withAws({ streaming: { functionTimeoutSeconds: 28 } })).toThrow(/functionTimeoutSeconds/);
    expect(() => withAws({ streaming: { functionTimeoutSeconds: 29 } })).not.toThrow();
  });

  it('accepts alarm thresholds at their bounds: 100 %, one request, a one-second job age', () => {
    expect(
      withAws({
        alarms: { budgetWarningPercent: 100, exhaustedPercent: 100, minRequests: 1, oldestJobAgeSeconds: 1 },
      }).aws.alarms,
    ).toMatchObject({
      budgetWarningPercent: 100,
      exhaustedPercent: 100,
      minRequests: 1,
      oldestJobAgeSeconds: 1,
    });
  });
});

describe('config: the aws key-read settings', () => {
  const aws = (fields: Record<string, unknown>) => withAws(fields).aws;

  it.each([
    ['keyReadBudgetMs', 100, 10_000],
    ['callerKeyMissCacheMs', 0, 300_000],
    ['callerKeyCacheMs', 1, 3_600_000],
  ])('accepts %s from %i to %i ms and refuses one past either end, naming the field', (field, low, high) => {
    expect(aws({ [field]: low })[field as 'keyReadBudgetMs']).toBe(low);
    expect(aws({ [field]: high })[field as 'keyReadBudgetMs']).toBe(high);
    expect(() => aws({ [field]: low - 1 })).toThrow(`aws.${field}`);
    expect(() => aws({ [field]: high + 1 })).toThrow(`aws.${field}`);
  });
});
