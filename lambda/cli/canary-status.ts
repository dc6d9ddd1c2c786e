import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import type { ChainVariant } from '../core/ledger/ledger-entry.js';
import type { ChainContext } from './chain-context.js';
import { runningCanary } from './chain-override-command.js';
import { CliUsageError, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

/**
 * The fields of a request ledger line that `chain status` reads. Local lines carry `time`, the
 * Lambda's Powertools lines `timestamp`; any other line (attempts, other log lines) is passed over.
 */
const requestLine = z.object({
  type: z.literal('request'),
  pipeline: z.string(),
  variant: z.enum(['canary', 'stable']),
  reason: z.string(),
  attempts: z.number(),
  latencyMs: z.number(),
  time: z.string().optional(),
  timestamp: z.string().optional(),
});
type RequestLine = z.infer<typeof requestLine>;

/** One variant's figures over the request lines read. */
export interface VariantFigures {
  requests: number;
  /** Share of requests whose reason is `success`, 0..1. */
  successRate: number;
  attemptsPerRequest: number;
  p50Ms: number;
  p95Ms: number;
}

/**
 * Request lines of `pipeline` labelled with a variant, written at or after `sinceMs`, from ledger
 * text: JSON lines, or CloudWatch's text output, whose messages are separated by tabs (JSON text
 * never holds a raw tab). Anything that is not such a line is passed over.
 */
export function canaryLines(text: string, pipeline: string, sinceMs: number): RequestLine[] {
  const lines: RequestLine[] = [];
  for (const chunk of text.split(/[\n\t]/)) {
    const start = chunk.indexOf('{');
    if (start < 0) continue;
    let json: unknown;
    try {
      json = JSON.parse(chunk.slice(start));
    } catch {
      continue;
    }
    const parsed = requestLine.safeParse(json);
    if (!parsed.success || parsed.data.pipeline !== pipeline) continue;
    const at = Date.parse(parsed.data.time ?? parsed.data.timestamp ?? '');
    if (!Number.isNaN(at) && at < sinceMs) continue;
    lines.push(parsed.data);
  }
  return lines;
}

/** Nearest-rank percentile of sorted values; 0 for none. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export function variantFigures(lines: readonly RequestLine[], variant: ChainVariant): VariantFigures {
  const mine = lines.filter((l) => l.variant === variant);
  const n = mine.length;
  const latencies = mine.map((l) => l.latencyMs).sort((a, b) => a - b);
  return {
    requests: n,
    successRate: n === 0 ? 0 : mine.filter((l) => l.reason === 'success').length / n,
    attemptsPerRequest: n === 0 ? 0 : mine.reduce((sum, l) => sum + l.attempts, 0) / n,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
  };
}

async function ledgerText(c: ChainContext, ledger: string): Promise<string> {
  if (ledger !== '-') return readFileSync(resolve(c.io.cwd, ledger), 'utf8');
  if (!c.io.stdin) throw new CliUsageError('--ledger - reads standard input, and there is none');
  let text = '';
  for await (const chunk of c.io.stdin) text += chunk.toString();
  return text;
}

/**
 * `chain status <pipeline> --ledger FILE|-`: the running canary and both chains' success rate,
 * attempts per request and latency, from the request lines of the ledger since the canary started.
 */
export async function canaryStatus(c: ChainContext, ledger: string | undefined): Promise<number> {
  if (!ledger)
    throw new CliUsageError(
      'chain status reads the ledger: --ledger FILE (serve --ledger) or --ledger - (lines on standard input)',
    );
  const { document, canary } = await runningCanary(c);
  const lines = canaryLines(await ledgerText(c, ledger), c.pipeline, Date.parse(canary.since));
  const row = (variant: ChainVariant, chain: string) => {
    const f = variantFigures(lines, variant);
    const rate = f.requests === 0 ? '-' : `${(f.successRate * 100).toFixed(1)} %`;
    return [
      variant,
      chain,
      String(f.requests),
      rate,
      f.attemptsPerRequest.toFixed(2),
      String(f.p50Ms),
      String(f.p95Ms),
    ];
  };
  const stable = document.chain ?? `${c.catalog.config.pipelines[c.pipeline]?.chain ?? '?'} (config)`;
  const table = formatTable(
    ['VARIANT', 'CHAIN', 'REQUESTS', 'SUCCESS', 'ATTEMPTS/REQUEST', 'P50 MS', 'P95 MS'],
    [row('stable', stable), row('canary', canary.chain)],
  );
  c.io.stdout(
    `pipeline ${c.pipeline}: canary at ${canary.percent} % since ${canary.since}\n` +
      `${lines.length} request lines of the ledger since then\n\n${table}\n`,
  );
  return EXIT_OK;
}
