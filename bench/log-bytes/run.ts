/**
 * Log bytes and DynamoDB calls per request of the API Lambda, as deployed: the real handler
 * (`lambda/handlers/api.ts`, Powertools logger and EMF metrics) loaded in this process with the
 * stack's environment, against dynalite (through a counting proxy), a fake SSM and a fake OpenAI
 * upstream. After one warm-up request (the cold start's own lines are not counted), each scenario
 * sends N requests one at a time and divides what the process wrote to stdout and stderr, and the
 * DynamoDB calls, by N. CloudWatch Logs bills the bytes of each line (plus 26 bytes of event
 * overhead per line), which is why lines are counted too.
 *
 * The first request of the new container (the cold start) is measured on its own row. Keys as
 * deployed today: caller key in the caller-keys table, provider key in Secrets Manager; with
 * `--keys ssm`, as before the table: both in the SSM snapshot of the prefix.
 *
 *   npm run bench:log-bytes            # N = 20
 *   npm run bench:log-bytes -- 50
 *   npm run bench:log-bytes -- 20 --keys ssm
 */
import { formatTable } from '../../lambda/cli/format-table.js';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../test/helpers/api-handler-harness.js';
import { invokeStreaming } from '../../test/helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-bench-caller-key-0123456789abcdef';
const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 20);
const KEYS_IN_SSM = process.argv.join(' ').includes('--keys ssm');
const PROVIDER_KEY = KEYS_IN_SSM ? '/switchyard/keys/fake' : 'switchyard/keys/fake';

interface Scenario {
  name: string;
  body: unknown;
}

const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'p',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

const SCENARIOS: Scenario[] = [
  { name: 'plain, one attempt', body: ask() },
  { name: 'streamed, one attempt', body: ask({ stream: true }) },
  { name: 'plain, fallback once', body: ask({ model: 'q' }) },
];

/** What one line is, for the breakdown: a ledger line, an EMF record, a warning, anything else. */
function kindOf(line: string): string {
  if (line.includes('"_aws"')) return 'EMF';
  if (line.includes('"ledger attempt"')) return 'ledger attempt';
  if (line.includes('"ledger request"')) return 'ledger request';
  if (line.includes('No application metrics')) return 'empty-metrics warning';
  return 'other';
}

interface Measured {
  /** Requests measured. */
  n: number;
  bytes: number;
  lines: number;
  kinds: Map<string, { lines: number; bytes: number }>;
  calls: Map<string, number>;
  ssmCalls: number;
  secretsCalls: number;
}

async function measure(api: ApiHandlerRig, scenario: Scenario, n = N): Promise<Measured> {
  const startText = api.output.text().length;
  const startCalls = api.dynamodb?.calls.length ?? 0;
  const startSsm = api.ssm.requests.length;
  const startSecrets = api.secrets?.requests.length ?? 0;
  for (let i = 0; i < n; i += 1) {
    const res = await invokeStreaming(api.handler, chatEvent(CALLER_KEY, scenario.body));
    if (res.statusCode !== 200) throw new Error(`${scenario.name}: status ${res.statusCode}: ${res.body}`);
  }
  // A write still in flight after the last invocation would be counted on the next scenario.
  await new Promise((r) => setTimeout(r, 200));
  const text = api.output.text().slice(startText);
  const lines = text.split('\n').filter((l) => l !== '');
  const kinds = new Map<string, { lines: number; bytes: number }>();
  for (const line of lines) {
    const k = kinds.get(kindOf(line)) ?? { lines: 0, bytes: 0 };
    k.lines += 1;
    k.bytes += Buffer.byteLength(line) + 1;
    kinds.set(kindOf(line), k);
  }
  const calls = new Map<string, number>();
  for (const call of api.dynamodb?.calls.slice(startCalls) ?? [])
    calls.set(call.operation, (calls.get(call.operation) ?? 0) + 1);
  return {
    n,
    bytes: Buffer.byteLength(text),
    lines: lines.length,
    kinds,
    calls,
    ssmCalls: api.ssm.requests.length - startSsm,
    secretsCalls: (api.secrets?.requests.length ?? 0) - startSecrets,
  };
}

async function main(): Promise<void> {
  const api = await startApiHandler(
    ({ ssm, secrets, upstream }) => {
      if (KEYS_IN_SSM) ssm.put(PROVIDER_KEY, 'sk-bench-provider-key', { type: 'SecureString' });
      else secrets?.create(PROVIDER_KEY, 'sk-bench-provider-key');
      upstream.setDefault('model-down', { status: 503 });
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: PROVIDER_KEY },
          },
          models: {
            a: { provider: 'fake', model: 'model-a' },
            down: { provider: 'fake', model: 'model-down' },
          },
          pipelines: {
            p: { chain: 'a' },
            // Never opens, so every request pays one failed attempt and one fallback.
            q: { chain: 'down,a', breaker: { consecutive429: 1000, minSamples: 1_000_000 } },
          },
          aws: { ssmPrefix: '/switchyard' },
        },
        table: 'switchyard-log-bytes-bench',
        callerKey: CALLER_KEY,
      };
    },
    KEYS_IN_SSM
      ? { recordDynamoDb: true }
      : { recordDynamoDb: true, callerKeys: 'dynamodb', secretsManager: true },
  );
  const results: [Scenario, Measured][] = [];
  try {
    const cold: Scenario = { name: 'first request of a new container', body: ask() };
    results.push([cold, await measure(api, cold, 1)]);
    for (const scenario of SCENARIOS) results.push([scenario, await measure(api, scenario)]);
  } finally {
    await api.stop();
  }
  const keys = KEYS_IN_SSM
    ? 'caller and provider keys in the SSM snapshot (before the caller-keys table)'
    : 'caller key in the caller-keys table, provider key in Secrets Manager';
  console.log(
    `log bytes and store calls per request of the API Lambda handler, in process, N = ${N}; ${keys}\n`,
  );
  console.log(
    formatTable(
      [
        'scenario',
        'bytes/req',
        'lines/req',
        'ledger B',
        'EMF lines',
        'EMF B',
        'warnings',
        'DynamoDB calls/req',
        'SSM calls/req',
        'Secrets Manager calls/req',
      ],
      results.map(([s, m]) => {
        const perRequest = (x: number) => (x / m.n).toFixed(1);
        const emf = m.kinds.get('EMF') ?? { lines: 0, bytes: 0 };
        const ledger =
          (m.kinds.get('ledger attempt')?.bytes ?? 0) + (m.kinds.get('ledger request')?.bytes ?? 0);
        const warn = m.kinds.get('empty-metrics warning')?.lines ?? 0;
        const calls = [...m.calls].map(([op, n]) => `${op} ${perRequest(n)}`).join(', ');
        return [
          s.name,
          perRequest(m.bytes),
          perRequest(m.lines),
          perRequest(ledger),
          perRequest(emf.lines),
          perRequest(emf.bytes),
          perRequest(warn),
          calls,
          perRequest(m.ssmCalls),
          perRequest(m.secretsCalls),
        ];
      }),
    ),
  );
}

await main();
