/**
 * Log bytes and DynamoDB calls per request of the API Lambda, as deployed: the real handler
 * (`lambda/handlers/api.ts`, Powertools logger and EMF metrics) loaded in this process with the
 * stack's environment, against dynalite (through a counting proxy), a fake SSM and a fake OpenAI
 * upstream. After one warm-up request (the cold start's own lines are not counted), each scenario
 * sends N requests one at a time and divides what the process wrote to stdout and stderr, and the
 * DynamoDB calls, by N. CloudWatch Logs bills the bytes of each line (plus 26 bytes of event
 * overhead per line), which is why lines are counted too.
 *
 *   npm run bench:log-bytes            # N = 20
 *   npm run bench:log-bytes -- 50
 */
import { formatTable } from '../../lambda/cli/format-table.js';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../test/helpers/api-handler-harness.js';
import { invokeStreaming } from '../../test/helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-bench-caller-key-0123456789abcdef';
const N = Number(process.argv[2] ?? 20);

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
  bytes: number;
  lines: number;
  kinds: Map<string, { lines: number; bytes: number }>;
  calls: Map<string, number>;
}

async function measure(api: ApiHandlerRig, scenario: Scenario): Promise<Measured> {
  const startText = api.output.text().length;
  const startCalls = api.dynamodb?.calls.length ?? 0;
  for (let i = 0; i < N; i += 1) {
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
  return { bytes: Buffer.byteLength(text), lines: lines.length, kinds, calls };
}

const perRequest = (n: number) => (n / N).toFixed(1);

async function main(): Promise<void> {
  const api = await startApiHandler(
    ({ ssm, upstream }) => {
      ssm.put('/switchyard/keys/fake', 'sk-bench-provider-key', { type: 'SecureString' });
      upstream.setDefault('model-down', { status: 503 });
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' },
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
    { recordDynamoDb: true },
  );
  const results: [Scenario, Measured][] = [];
  try {
    await invokeStreaming(api.handler, chatEvent(CALLER_KEY, ask()));
    for (const scenario of SCENARIOS) results.push([scenario, await measure(api, scenario)]);
  } finally {
    await api.stop();
  }
  console.log(`log bytes and DynamoDB calls per request of the API Lambda handler, in process, N = ${N}\n`);
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
      ],
      results.map(([s, m]) => {
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
        ];
      }),
    ),
  );
}

await main();
