/**
 * With the standard `OTEL_*` variables, `startTracing` loads the SDK and its OTLP/HTTP exporter:
 * the spans of a request reach a collector (here a loopback stub that records what is POSTed).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { type StartedTracing, startTracing } from '../../../lambda/tracing/start-tracing.js';
import { type GatewayHarness, HELLO, startGatewayHarness, waitFor } from '../../helpers/gateway-harness.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A collector stub: answers every POST with 200 `{}` and keeps it. */
async function startCollector() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: GatewayHarness | undefined;
let tracing: StartedTracing | undefined;
let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
afterEach(async () => {
  await h?.close();
  await tracing?.shutdown();
  await collector?.close();
  h = tracing = collector = undefined;
});

describe('OTLP/HTTP export', () => {
  it('sends the spans of a request to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces when OTEL_TRACES_EXPORTER=otlp', async () => {
    collector = await startCollector();
    tracing = await startTracing({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'switchyard-test',
    });
    expect(tracing?.destination).toBe(`${collector.url}/v1/traces`);
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { tracer: tracing?.tracer });
    h.openai.script('model-a', [{ status: 429 }]);
    expect((await h.post({ model: 'p', ...HELLO })).status).toBe(200);
    await h.close();
    h = undefined;
    // Shutting down flushes the batch.
    await tracing?.shutdown();
    tracing = undefined;

    const posts = collector.received.filter((r) => r.path === '/v1/traces');
    expect(posts.length).toBeGreaterThan(0);
    const body = posts.map((p) => p.body).join('\n');
    expect(posts[0]?.headers['content-type']).toContain('application/json');
    expect(body).toContain('switchyard-test');
    for (const name of ['chat p', 'chat model-a', 'chat model-b', 'gen_ai.operation.name', 'rate_limited']) {
      expect(body).toContain(name);
    }
    expect(body).not.toContain(HELLO.messages[0]?.content);
  });

  it('uses a tracer provider registered before it (as the ADOT layer registers one) and exports nothing itself', async () => {
    collector = await startCollector();
    const exporter = new InMemorySpanExporter();
    const registered = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(registered);
    try {
      tracing = await startTracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      });
      expect(tracing?.destination).toBe('the tracer provider already registered');
      h = await startGatewayHarness({ p: { chain: 'a' } }, { tracer: tracing?.tracer });
      expect((await h.post({ model: 'p', ...HELLO })).status).toBe(200);
      await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'chat p'));
      expect(
        exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .sort(),
      ).toEqual(['chat model-a', 'chat p']);
      await tracing?.shutdown();
      expect(collector.received).toEqual([]);
    } finally {
      trace.disable();
      await registered.shutdown();
    }
  });

  it('loads nothing and sends nothing when OTEL_TRACES_EXPORTER is unset, none, or the SDK is disabled', async () => {
    expect(await startTracing({})).toBeUndefined();
    expect(await startTracing({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(await startTracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });
});
