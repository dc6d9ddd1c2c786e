/**
 * bench/cost: what a million requests cost as deployed. Measures the API Lambda bundle's module
 * init and CPU per request under the CPU share of each memory size (cpu-share.ts: a CFS quota of
 * M / 1769 of one CPU), then prices on-demand Lambda at each size, Managed Instances on two
 * instance sizes and a LiteLLM-on-Fargate reference from those figures, the per-request store
 * calls and log bytes of bench/log-bytes, and the list prices in prices.ts.
 *
 *   npm run bench:cost             # 256, 512, 1024 and 1769 MB; 50 warm-up + 100 measured requests × 3 fresh processes each
 *   npm run bench:cost -- --quick  # 1024 MB only, 10 requests, one process: proves it runs (CI)
 */
import { loadavg } from 'node:os';
import { type CostRow, fargateRow, managedInstancesRow, onDemandRow, WORKLOAD } from './cost-model.js';
import { MB_PER_VCPU } from './cpu-share.js';
import { type HandlerFigures, measureHandler } from './measure-handler.js';
import { PRICES, PRICES_READ_ON } from './prices.js';

const quick = process.argv.includes('--quick');
const sizes = quick ? [1024] : [256, 512, 1024, MB_PER_VCPU];
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
const measured = await measureHandler({
  sizes,
  requests: quick ? 10 : 100,
  warmup: quick ? 5 : 50,
  runs: quick ? 1 : 3,
});

const table = (header: string[], rows: string[][]) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
};

console.log(
  `API Lambda bundle (cdk synth's esbuild flags), Node ${process.version}, ${measured.rows.length} memory sizes; CPU share: ${measured.how}; load average ${load} at the start`,
);
console.log(
  table(
    ['memory', 'CPU share', 'module init (wall)', 'CPU per request', 'wall per request (instant upstream)'],
    measured.rows.map(({ memoryMb, figures }) => [
      `${memoryMb} MB`,
      `${(((memoryMb ?? MB_PER_VCPU) / MB_PER_VCPU) * 100).toFixed(0)} % of a vCPU`,
      `${figures.initMs.toFixed(0)} ms`,
      `${(figures.cpuUsPerRequest / 1000).toFixed(2)} ms`,
      `${figures.wallMsPerRequest.toFixed(1)} ms`,
    ]),
  ),
);

const figuresAt = (mb: number): HandlerFigures | undefined =>
  measured.rows.find((r) => r.memoryMb === mb)?.figures;
const fullVcpu = figuresAt(MB_PER_VCPU) ?? figuresAt(1024);
if (!fullVcpu) throw new Error('no figures to price');
const rows: CostRow[] = [
  ...measured.rows.flatMap(({ memoryMb, figures }) =>
    memoryMb === undefined || memoryMb === MB_PER_VCPU ? [] : [onDemandRow(memoryMb, figures)],
  ),
  managedInstancesRow({ name: 'm7g.large', vcpus: 2, hourUsd: PRICES.ec2M7gLargeHour.usd }, fullVcpu),
  managedInstancesRow({ name: 'm7g.xlarge', vcpus: 4, hourUsd: PRICES.ec2M7gXlargeHour.usd }, fullVcpu),
  fargateRow(),
];
const usd = (n: number | undefined) => (n === undefined ? '—' : `$${n.toFixed(2)}`);
console.log(
  `\ncost per 1 M requests, US$ — ${WORKLOAD.requestsPerDay.toLocaleString('en')} requests/day steady, ${WORKLOAD.upstreamWaitMs} ms upstream wait, ${WORKLOAD.fallbackShare * 100} % fallbacks; list prices of ${PRICES_READ_ON} (bench/cost/prices.ts)`,
);
console.log(
  table(
    [
      'deployment',
      'compute',
      'Lambda requests',
      'API Gateway',
      'DynamoDB',
      'logs',
      'total',
      'total at full use',
      'SSM / KMS calls',
      'note',
    ],
    rows.map((r) => [
      r.deployment,
      usd(r.compute),
      usd(r.requestFees),
      usd(r.apiGateway),
      usd(r.dynamoDb),
      usd(r.logs),
      usd(r.total),
      usd(r.totalAtFullUse),
      `${r.ssmCalls.toFixed(0)} / ${r.kmsCalls.toFixed(0)}`,
      r.note,
    ]),
  ),
);
if (quick) console.log('\n--quick: one size, few requests: proves the bench runs; read no figure from it.');
process.exit(0);
