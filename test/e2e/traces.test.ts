/**
 * Request and attempt spans (docs/design.md#traces) over real HTTP: the gateway in front of the
 * fake upstreams, its spans in the SDK's in-memory exporter.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { otelSpanTracer } from '../../lambda/tracing/otel-span-tracer.js';
import { type GatewayHarness, PRICE, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

const PROMPT_MARKER = 'PROMPT-MARKER-7f3a1c';
const OUTPUT_MARKER = 'OUTPUT-MARKER-9b2c4d';
const ASK = { messages: [{ role: 'user', content: `say something ${PROMPT_MARKER}` }] };

let h: GatewayHarness;
let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(async () => {
  await h?.close();
  await provider.shutdown();
});

const start = (pipelines: Record<string, unknown>) =>
  startGatewayHarness(pipelines, { tracer: otelSpanTracer(provider.getTracer('switchyard')) });
const spans = () => exporter.getFinishedSpans();
const requestSpan = () => spans().find((s) => s.kind === SpanKind.SERVER) as ReadableSpan;
const attemptSpans = () => spans().filter((s) => s.kind === SpanKind.CLIENT);
const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('traces', () => {
  it('a request that falls back once (429, then 200) is one request span with two attempt spans under it', async () => {
    h = await start({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ status: 429 }]);
    h.openai.script('model-b', [{ text: OUTPUT_MARKER }]);
    const res = await h.post({ model: 'p', ...ASK });
    expect(res.status).toBe(200);
    await waitFor(() => requestSpan() !== undefined);
    const answered = h.attempts().at(-1) as AttemptLedgerEntry;
    const tokens = answered.usage ?? { inputTokens: -1, outputTokens: -1 };
    expect(tokens.inputTokens).toBeGreaterThan(0);

    const request = requestSpan();
    expect(request.name).toBe('chat p');
    expect(parentId(request)).toBeUndefined();
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'p',
      'gen_ai.response.model': 'model-b',
      'gen_ai.provider.name': 'fake',
      'gen_ai.usage.input_tokens': tokens.inputTokens,
      'gen_ai.usage.output_tokens': tokens.outputTokens,
      'switchyard.request_id': res.headers.get('x-switchyard-request-id'),
      'switchyard.pipeline': 'p',
      'switchyard.reason': 'success',
      'switchyard.attempts': 2,
      'switchyard.route': 'a:429,b:200',
      'switchyard.stream': false,
      'http.response.status_code': 200,
    });
    expect(request.attributes['error.type']).toBeUndefined();

    const [first, second] = attemptSpans().sort(
      (x, y) => Number(x.attributes['switchyard.attempt']) - Number(y.attributes['switchyard.attempt']),
    );
    for (const attempt of [first, second]) {
      expect(attempt?.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(parentId(attempt as ReadableSpan)).toBe(request.spanContext().spanId);
    }
    expect(first?.name).toBe('chat model-a');
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(first?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'model-a',
      'error.type': 'rate_limited',
      'http.response.status_code': 429,
      'switchyard.attempt': 1,
      'switchyard.tier': 1,
      'switchyard.action': 'first',
      'switchyard.failure_class': 'rate_limited',
      'switchyard.phase': 'before_output',
      'switchyard.breaker.state_seen': 'closed',
    });
    expect(first?.attributes['gen_ai.response.model']).toBeUndefined();
    expect(second?.name).toBe('chat model-b');
    expect(second?.status.code).toBe(SpanStatusCode.UNSET);
    expect(second?.attributes).toMatchObject({
      'gen_ai.request.model': 'model-b',
      'gen_ai.response.model': 'model-b',
      'gen_ai.usage.input_tokens': tokens.inputTokens,
      'gen_ai.usage.output_tokens': tokens.outputTokens,
      'switchyard.tier': 2,
      'switchyard.action': 'fallback',
      'switchyard.step': 'substitute',
      'switchyard.outcome': 'ok',
      'switchyard.cost_usd':
        (tokens.inputTokens * PRICE.inputPerMTok + tokens.outputTokens * PRICE.outputPerMTok) / 1e6,
    });
    // The attempts lie inside the request, in order.
    const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
    expect(ms((first as ReadableSpan).endTime)).toBeLessThanOrEqual(
      ms((second as ReadableSpan).startTime) + 1,
    );
    expect(ms(request.startTime)).toBeLessThanOrEqual(ms((first as ReadableSpan).startTime) + 1);
  });

  it('a stream cut after its commit ends its request span as partial, after the last chunk', async () => {
    h = await start({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ cutAfterChunks: 2, text: `${OUTPUT_MARKER} one two three four five` }]);
    const res = await h.post({ model: 'p', stream: true, ...ASK });
    expect(res.status).toBe(200);
    await res.text();
    await waitFor(() => requestSpan() !== undefined);

    expect(attemptSpans()).toHaveLength(1);
    const [attempt] = attemptSpans();
    const request = requestSpan();
    expect(parentId(attempt as ReadableSpan)).toBe(request.spanContext().spanId);
    expect(attempt?.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempt?.attributes).toMatchObject({
      'gen_ai.request.model': 'model-a',
      'switchyard.phase': 'after_output',
      'switchyard.action': 'first',
    });
    expect(attempt?.attributes['error.type']).toBe(attempt?.attributes['switchyard.outcome']);
    expect(request.status.code).toBe(SpanStatusCode.ERROR);
    expect(request.attributes).toMatchObject({
      'switchyard.reason': 'partial',
      'switchyard.stream': true,
      'switchyard.route': h.requests().at(-1)?.route,
      'http.response.status_code': 200,
    });
    expect(request.attributes['error.type']).toBe(h.requests().at(-1)?.failureClass);
  });

  it('no span attribute holds the prompt, the output or the provider key', async () => {
    h = await start({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ status: 500 }]);
    h.openai.script('model-b', [{ text: OUTPUT_MARKER }]);
    await (await h.post({ model: 'p', ...ASK })).text();
    h.openai.script('model-a', [{ cutAfterChunks: 1, text: `${OUTPUT_MARKER} and more words here` }]);
    await (await h.post({ model: 'p', stream: true, ...ASK })).text();
    await waitFor(() => spans().filter((s) => s.kind === SpanKind.SERVER).length === 2);

    const everything = JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events, s.status]));
    expect(everything).toContain('model-a');
    for (const secret of [PROMPT_MARKER, OUTPUT_MARKER, h.env.FAKE_KEY as string]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("honours the caller's traceparent: the request span is its child", async () => {
    h = await start({ p: { chain: 'a' } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    await (await h.post({ model: 'p', ...ASK }, { traceparent: `00-${traceId}-${callerSpan}-01` })).text();
    await waitFor(() => requestSpan() !== undefined);

    const request = requestSpan();
    expect(request.spanContext().traceId).toBe(traceId);
    expect(parentId(request)).toBe(callerSpan);
    expect(attemptSpans()[0]?.spanContext().traceId).toBe(traceId);
  });

  it("names spans by the gateway's request id and keeps the caller's x-request-id as a label beside its traceparent", async () => {
    h = await start({ p: { chain: 'a' } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const headers = { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, 'x-request-id': 'caller-7' };
    const res = await h.post({ model: 'p', ...ASK }, headers);
    await res.text();
    await waitFor(() => requestSpan() !== undefined);

    const id = res.headers.get('x-switchyard-request-id');
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    const request = requestSpan();
    expect(request.spanContext().traceId).toBe(traceId);
    expect(request.attributes).toMatchObject({
      'switchyard.request_id': id,
      'switchyard.client_request_id': 'caller-7',
    });
    expect(attemptSpans().map((a) => a.attributes['switchyard.request_id'])).toEqual([id]);
  });

  it('a malformed traceparent starts a new trace and the request still succeeds', async () => {
    h = await start({ p: { chain: 'a' } });
    const res = await h.post({ model: 'p', ...ASK }, { traceparent: '00-zz-nothex-01' });
    expect(res.status).toBe(200);
    await waitFor(() => requestSpan() !== undefined);
    expect(parentId(requestSpan())).toBeUndefined();
  });

  it('an embeddings request and its attempts are named and marked as embeddings, not chat', async () => {
    h = await startGatewayHarness(
      { emb: { chain: 'e1' } },
      {
        tracer: otelSpanTracer(provider.getTracer('switchyard')),
        configure: (config) => {
          config.models.e1 = { provider: 'fake', model: 'model-e1', dimensions: 8 };
        },
      },
    );
    h.openai.setDefault('model-e1', { dimensions: 8 });
    const res = await fetch(`${h.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'emb', input: 'a text' }),
    });
    expect(res.status).toBe(200);
    await waitFor(() => requestSpan() !== undefined);

    expect(requestSpan().name).toBe('embeddings emb');
    expect(requestSpan().attributes['gen_ai.operation.name']).toBe('embeddings');
    const [attemptSpan] = attemptSpans();
    expect(attemptSpan?.name).toBe('embeddings model-e1');
    expect(attemptSpan?.attributes['gen_ai.operation.name']).toBe('embeddings');
  });

  it('a request refused before routing still has its span, failed with its HTTP status', async () => {
    h = await start({ p: { chain: 'a' } });
    const res = await h.post({ model: 'p', messages: 'not a list' });
    expect(res.status).toBe(400);
    await waitFor(() => requestSpan() !== undefined);
    expect(attemptSpans()).toEqual([]);
    expect(requestSpan().status.code).toBe(SpanStatusCode.ERROR);
    expect(requestSpan().attributes).toMatchObject({ 'error.type': '400', 'http.response.status_code': 400 });
  });
});
