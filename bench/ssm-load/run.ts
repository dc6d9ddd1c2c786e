/**
 * SSM calls per second for N warm Lambda containers. Each container is the real AWS wiring of
 * `createAwsGateway` (parameter snapshot, caller keys, chain overrides, provider keys) with its own
 * seeded jitter, on a shared VIRTUAL clock, talking over HTTP to the fake SSM server of the tests.
 * Containers start spread over the first minute (cold starts), then each serves one request per
 * virtual second; calls are counted by the fake, per operation, over the steady window after the
 * ramp. One SDK client is shared by all containers (in AWS each has its own; only the count
 * matters here). Time is virtual, so the rates are exact for the code, not a latency forecast.
 *
 * Then the cold spike: 1,000 NEW containers in 10 s against an SSM that answers 40 calls a second
 * (its default quota, account-wide), on a virtual clock over loopback, once on the path before
 * (caller and provider keys in the SSM snapshot) and once on today's (caller keys in DynamoDB,
 * provider keys in Secrets Manager, jittered retries): caller-facing 503s, goal 0.
 *
 *   npm run bench:ssm-load             # both
 *   npm run bench:ssm-load -- --spike  # the cold spike only
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { formatTable } from '../../lambda/cli/format-table.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { startFakeSsm } from '../../test/helpers/fake-ssm.js';
import type { Outcome } from './cold-container.js';
import { runColdSpike, type SpikeResult } from './cold-spike.js';
import { createSimContainer } from './sim-container.js';

const PREFIX = '/switchyard';
const RAMP_S = 60;
const STEADY_S = 600;
const GOAL_PER_S = 40;
const PROVIDERS = ['openai', 'groq', 'together', 'openrouter'];

interface Scenario {
  name: string;
  /** Where the provider keys live: under the prefix (in the snapshot) or elsewhere (GetParameters). */
  keysUnderPrefix: boolean;
  overrides: number;
}

const SCENARIOS: Scenario[] = [
  { name: '4 keys under prefix, 0 overrides', keysUnderPrefix: true, overrides: 0 },
  { name: '4 keys under prefix, 4 overrides', keysUnderPrefix: true, overrides: 4 },
  { name: '4 keys under prefix, 8 overrides', keysUnderPrefix: true, overrides: 8 },
  { name: '4 keys elsewhere, 4 overrides', keysUnderPrefix: false, overrides: 4 },
];
const SIZES = [1, 100, 1_000];

const keyName = (scenario: Scenario, provider: string) =>
  scenario.keysUnderPrefix ? `${PREFIX}/keys/${provider}` : `/provider-keys/${provider}`;

async function simulate(scenario: Scenario, containers: number) {
  const ssm = await startFakeSsm();
  try {
    for (const p of PROVIDERS) ssm.put(keyName(scenario, p), `sk-${p}`, { type: 'SecureString' });
    ssm.put(`${PREFIX}/caller-keys`, '{}', { type: 'SecureString' });
    for (let i = 1; i <= scenario.overrides; i += 1) ssm.put(`${PREFIX}/chains/p${i}`, 'a,b');
    const config = parseConfig({
      providers: Object.fromEntries(
        PROVIDERS.map((p) => [
          p,
          { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: keyName(scenario, p) },
        ]),
      ),
      models: { a: { provider: 'openai', model: 'x' }, b: { provider: 'groq', model: 'y' } },
      pipelines: { p1: { chain: 'a,b' } },
      aws: { ssmPrefix: PREFIX },
    });
    const client = new SSMClient({
      endpoint: ssm.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'fake' },
      maxAttempts: 1,
    });
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const fleet = Array.from({ length: containers }, (_, i) =>
      createSimContainer({ client, config, prefix: PREFIX, clock, seed: 1_000 + i }),
    );
    const startAt = fleet.map((_, i) => Math.floor((i * RAMP_S) / containers));
    let coldCalls = 0;
    let steadyFrom = 0;
    for (let second = 0; second < RAMP_S + STEADY_S; second += 1) {
      if (second === RAMP_S) steadyFrom = ssm.requests.length;
      const starting = fleet.filter((_, i) => startAt[i] === second);
      const before = ssm.requests.length;
      await Promise.all(starting.map((c) => c.start()));
      coldCalls += ssm.requests.length - before;
      await Promise.all(fleet.filter((_, i) => (startAt[i] ?? 0) <= second).map((c) => c.request()));
      now += 1_000;
    }
    const steady = ssm.requests.slice(steadyFrom);
    const rate = (op: string) => steady.filter((r) => r.target === op).length / STEADY_S;
    client.destroy();
    return {
      byPath: rate('GetParametersByPath'),
      batch: rate('GetParameters'),
      single: rate('GetParameter'),
      total: steady.length / STEADY_S,
      coldPerContainer: coldCalls / containers,
    };
  } finally {
    await ssm.close();
  }
}

const spikeOnly = process.argv.includes('--spike');
const rows: string[][] = [];
for (const scenario of spikeOnly ? [] : SCENARIOS) {
  for (const n of SIZES) {
    const r = await simulate(scenario, n);
    rows.push([
      scenario.name,
      String(n),
      r.byPath.toFixed(2),
      r.batch.toFixed(2),
      r.single.toFixed(2),
      r.total.toFixed(2),
      r.coldPerContainer.toFixed(1),
      n === 1_000 ? (r.total < GOAL_PER_S ? 'yes' : 'NO') : '',
    ]);
  }
}
if (!spikeOnly) {
  console.log(
    `SSM calls/s, steady state over ${STEADY_S} virtual s after a ${RAMP_S} s ramp; chainCacheMs 30000 ±20 %, providerKeyCacheMs 300000 ±20 %\n`,
  );
  console.log(
    formatTable(
      [
        'scenario',
        'containers',
        'GetParametersByPath/s',
        'GetParameters/s',
        'GetParameter/s',
        'total/s',
        'cold-start calls/container',
        `< ${GOAL_PER_S}/s`,
      ],
      rows,
    ),
  );
}

const SPIKE = { containers: 1_000, arrivalMs: 10_000, ssmTps: GOAL_PER_S, endMs: 15_000 };
const spikes: SpikeResult[] = [];
for (const [path, providerKeys] of [
  ['ssm', 'ssm'],
  ['table', 'secrets'],
  ['table', 'ssm'],
] as const)
  spikes.push(await runColdSpike(path, providerKeys, SPIKE));
const n = (m: Map<Outcome, number>, o: Outcome) => String(m.get(o) ?? 0);
const fivexx = (m: Map<Outcome, number>) =>
  String((m.get('503 caller keys unavailable') ?? 0) + (m.get('503 provider_not_configured') ?? 0));
console.log(
  `\nCold spike: ${SPIKE.containers} new containers in ${SPIKE.arrivalMs / 1000} s against a ${SPIKE.ssmTps} TPS SSM (virtual clock, loopback); each container then serves 1 request/s until ${SPIKE.endMs / 1000} s. 4 providers, 4 chain overrides, keyReadBudgetMs 3000.\n`,
);
console.log(
  formatTable(
    [
      'path',
      'first requests 503',
      '…caller keys unavailable',
      '…provider_not_configured',
      'all requests',
      'all 503',
      'first answer p50 ms',
      'p99 ms',
      'SSM calls',
      'SSM throttled',
      'DynamoDB calls',
      'Secrets Manager calls',
    ],
    spikes.map((r) => [
      r.path === 'ssm'
        ? 'before: caller and provider keys in the SSM snapshot'
        : r.providerKeysIn === 'secrets'
          ? 'now: caller keys in DynamoDB, provider keys in Secrets Manager'
          : 'now: caller keys in DynamoDB, provider keys still under the SSM prefix',
      fivexx(r.first),
      n(r.first, '503 caller keys unavailable'),
      n(r.first, '503 provider_not_configured'),
      String(r.requests),
      fivexx(r.all),
      String(r.firstP50),
      String(r.firstP99),
      String(r.ssmCalls),
      String(r.ssmThrottled),
      String(r.dynamoDbCalls),
      String(r.secretsCalls),
    ]),
  ),
);
