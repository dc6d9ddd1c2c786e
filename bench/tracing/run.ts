/**
 * bench/tracing: what traces cost per request in the process, apart from the network. The ledger
 * lines of a request that falls back once (two attempt lines, one request line) go through the
 * gateway's ledger sink as it is wired: with traces off (the sink alone), and on (request and
 * attempt spans through the OpenTelemetry SDK, batched to an exporter that drops them, so the cost
 * of the SDK is counted and the network's is not). Median of 7 rounds of 20,000 requests each.
 *
 *   npm run bench:tracing
 */
import { loadavg } from 'node:os';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { LedgerEntry, LedgerSink } from '../../lambda/core/ledger/ledger-entry.js';
import { createRequestTracing } from '../../lambda/core/tracing/request-spans.js';
import { otelSpanTracer } from '../../lambda/tracing/otel-span-tracer.js';

const REQUESTS = 20_000;
const ROUNDS = 7;

const dropAll: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

function linesOf(requestId: string): LedgerEntry[] {
  const common = { requestId, pipeline: 'bench', tier: 1, provider: 'fake', latencyMs: 3 } as const;
  return [
    {
      type: 'attempt',
      ...common,
      attempt: 1,
      model: 'a',
      action: 'first',
      outcome: 'rate_limited',
      status: 429,
      phase: 'before_output',
    },
    {
      type: 'attempt',
      ...common,
      attempt: 2,
      tier: 2,
      model: 'b',
      action: 'fallback',
      step: 'substitute',
      outcome: 'ok',
      status: 200,
      phase: 'after_output',
      usage: { inputTokens: 12, outputTokens: 40 },
      costUsd: 0.0000175,
    },
    {
      type: 'request',
      requestId,
      pipeline: 'bench',
      reason: 'success',
      attempts: 2,
      model: 'b',
      route: 'a:429,b:200',
      latencyMs: 7,
      usage: { inputTokens: 12, outputTokens: 40 },
      costUsd: 0.0000175,
      stream: false,
    },
  ];
}

const sink: LedgerSink = (entry) => {
  if (entry.latencyMs < 0) throw new Error('never');
};

function round(run: (id: string) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) run(`req_${i}`);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / REQUESTS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const lines = linesOf('req_template');
  const off = (id: string) => {
    for (const line of lines) sink({ ...line, requestId: id });
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll)] });
  const tracing = createRequestTracing({
    tracer: otelSpanTracer(provider.getTracer('switchyard')),
    now: () => Date.now(),
    routes: (model) => ({ providerName: 'fake', model: `model-${model}` }),
  });
  const traced = tracing.ledger(sink);
  const on = (id: string) => {
    const open = tracing.open(id, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    for (const line of lines) traced({ ...line, requestId: id });
    open.answered(200, true);
  };
  const results = { off: [] as number[], on: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    results.off.push(round(off));
    results.on.push(round(on));
    await provider.forceFlush();
  }
  await provider.shutdown();
  const load = loadavg()[0]?.toFixed(1);
  console.log(`tracing cost per request in the process — Node ${process.version}, load average ${load}`);
  console.log(
    'ledger lines of a request that falls back once (2 attempts), CPU µs per request, median of 7 rounds of 20,000',
  );
  console.log('traces   spans/request  CPU µs/request');
  console.log(`off      0              ${median(results.off).toFixed(2)}`);
  console.log(`on       3              ${median(results.on).toFixed(2)}`);
}

await main();
