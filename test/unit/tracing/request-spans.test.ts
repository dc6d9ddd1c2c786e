import { describe, expect, it } from 'vitest';
import type {
  AttemptLedgerEntry,
  LedgerEntry,
  RequestLedgerEntry,
} from '../../../lambda/core/ledger/ledger-entry.js';
import { createRequestTracing } from '../../../lambda/core/tracing/request-spans.js';
import type { SpanAttributes, SpanStart, SpanTracer } from '../../../lambda/core/tracing/span-port.js';
import { attemptLine, requestLine } from '../../helpers/ledger-lines.js';

interface Recorded {
  name: string;
  start: SpanStart;
  attributes: Record<string, unknown>;
  errorType?: string;
  /** `fail` was called, with whatever type. */
  failed?: boolean;
  endMs?: number;
}

/** A tracer that keeps every span it starts. */
function recordingTracer() {
  const spans: Recorded[] = [];
  const handles = new Map<object, Recorded>();
  const tracer: SpanTracer = {
    startSpan(name, start) {
      const span: Recorded = { name, start, attributes: { ...start.attributes } };
      spans.push(span);
      const handle = {
        setAttributes: (a: SpanAttributes) => Object.assign(span.attributes, a),
        rename: (next: string) => {
          span.name = next;
        },
        fail: (type: string) => {
          span.errorType = type;
          span.failed = true;
        },
        end: (at: number) => {
          span.endMs = at;
        },
      };
      handles.set(handle, span);
      return handle;
    },
  };
  return {
    tracer,
    spans,
    parentOf: (s: Recorded) => (s.start.parent ? handles.get(s.start.parent) : undefined),
  };
}

const attempt = (over: Partial<AttemptLedgerEntry> = {}) => attemptLine({ latencyMs: 40, ...over });

const request = (over: Partial<RequestLedgerEntry> = {}) =>
  requestLine({ model: 'a', latencyMs: 50, usage: { inputTokens: 3, outputTokens: 4 }, ...over });

function setup() {
  let now = 1_000;
  const rec = recordingTracer();
  const ledger: LedgerEntry[] = [];
  const tracing = createRequestTracing({
    tracer: rec.tracer,
    now: () => now,
    routes: (model, provider) =>
      provider === 'fake' ? { providerName: 'fake', model: `model-${model}` } : undefined,
    maxOpen: 2,
  });
  const sink = tracing.ledger((e) => ledger.push(e));
  return { rec, ledger, tracing, sink, tick: (ms: number) => (now += ms) };
}

describe('request spans from ledger lines', () => {
  it('passes every line on to the ledger unchanged', () => {
    const { ledger, sink } = setup();
    const lines = [attempt(), request()];
    for (const line of lines) sink(line);
    expect(ledger).toEqual(lines);
  });

  it('an attempt span runs from its start (now - latency) to its line, under the request span', () => {
    const { rec, tracing, sink, tick } = setup();
    const open = tracing.open('r1', undefined);
    tick(100);
    sink(attempt({ latencyMs: 40, outcome: 'rate_limited', status: 429 }));
    const [server, client] = rec.spans;
    expect(client?.start).toMatchObject({ kind: 'client', startMs: 1_060 });
    expect(client?.endMs).toBe(1_100);
    expect(client?.errorType).toBe('rate_limited');
    expect(rec.parentOf(client as Recorded)).toBe(server);
    sink(request({ reason: 'exhausted', model: undefined, failureClass: 'rate_limited' }));
    expect(server?.endMs).toBeUndefined(); // the HTTP answer is not out yet
    tick(5);
    open.answered(502, true);
    expect(server?.endMs).toBe(1_105);
    expect(server?.errorType).toBe('rate_limited');
  });

  it("a stream's request span waits past its HTTP answer for the request line", () => {
    const { rec, tracing, sink, tick } = setup();
    const open = tracing.open('r1', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    open.answered(200, true);
    const [server] = rec.spans;
    expect(server?.start.traceparent).toContain('4bf92f35');
    expect(server?.endMs).toBeUndefined();
    tick(300);
    sink(attempt({ phase: 'after_output', latencyMs: 290 }));
    sink(request({ stream: true }));
    expect(server?.endMs).toBe(1_300);
    expect(server?.name).toBe('chat p');
    expect(server?.attributes).toMatchObject({
      'gen_ai.response.model': 'model-a',
      'switchyard.stream': true,
    });
  });

  it('a request opened as embeddings names its spans and their operation after it', () => {
    const { rec, tracing, sink } = setup();
    tracing.open('r1', undefined, 'embeddings').answered(200, true);
    sink(attempt());
    sink(request());
    const [server, client] = rec.spans;
    expect(server?.name).toBe('embeddings p');
    expect(server?.attributes['gen_ai.operation.name']).toBe('embeddings');
    expect(client?.name).toBe('embeddings model-a');
    expect(client?.attributes['gen_ai.operation.name']).toBe('embeddings');
  });

  it('a request opened without an operation, or a job without a request, is chat', () => {
    const { rec, tracing, sink } = setup();
    tracing.open('r1', undefined).answered(200, true);
    sink(attempt());
    sink(request());
    sink(attempt({ requestId: 'job-1' }));
    expect(rec.spans.map((s) => [s.name, s.attributes['gen_ai.operation.name']])).toEqual([
      ['chat p', 'chat'],
      ['chat model-a', 'chat'],
      ['chat', 'chat'],
      ['chat model-a', 'chat'],
    ]);
  });

  it('a request answered without routing ends at once, failed with its status from 400 up', () => {
    const { rec, tracing } = setup();
    tracing.open('r1', undefined).answered(401, false);
    tracing.open('r2', undefined).answered(200, false);
    tracing.open('r3', undefined).answered(400, false);
    tracing.open('r4', undefined).answered(399, false);
    expect(rec.spans.map((s) => [s.endMs, s.errorType, s.failed ?? false])).toEqual([
      [1_000, '401', true],
      [1_000, undefined, false],
      [1_000, '400', true],
      [1_000, undefined, false],
    ]);
    expect(rec.spans.map((s) => s.attributes['http.response.status_code'])).toEqual([401, 200, 400, 399]);
  });

  it('a successful attempt and a successful request are not failed', () => {
    const { rec, tracing, sink } = setup();
    tracing.open('r1', undefined).answered(200, true);
    sink(attempt({ outcome: 'ok', status: 200 }));
    sink(request());
    expect(rec.spans.map((s) => s.failed ?? false)).toEqual([false, false]);
  });

  it('a request span stays open for a second request with the same id until that one ends too', () => {
    const { rec, tracing, sink } = setup();
    const first = tracing.open('same', undefined);
    const second = tracing.open('same', undefined);
    first.answered(401, false);
    sink(attempt({ requestId: 'same' }));
    const [, secondSpan, attemptOfSecond] = rec.spans;
    expect(rec.parentOf(attemptOfSecond as Recorded)).toBe(secondSpan);
    second.answered(200, true);
    sink(request({ requestId: 'same' }));
    expect(secondSpan?.endMs).toBe(1_000);
  });

  it('a run without an HTTP request (a job) gets its request span from its first line', () => {
    const { rec, sink, tick } = setup();
    tick(500);
    sink(attempt({ requestId: 'job_1', latencyMs: 200 }));
    sink(request({ requestId: 'job_1' }));
    const [server, client] = rec.spans;
    expect(server?.start).toMatchObject({ kind: 'server', startMs: 1_300 });
    expect(rec.parentOf(client as Recorded)).toBe(server);
    expect(server?.endMs).toBe(1_500);
  });

  it('a fail-open attempt saw an open breaker; any other a closed one', () => {
    const { rec, sink } = setup();
    sink(attempt({ action: 'fail-open' }));
    sink(attempt({ attempt: 2, action: 'retry', step: 'retry' }));
    const seen = rec.spans
      .filter((s) => s.start.kind === 'client')
      .map((s) => s.attributes['switchyard.breaker.state_seen']);
    expect(seen).toEqual(['open', 'closed']);
  });

  it('a last-resort answer does not fail the request span; a route the catalog lacks keeps the ledger names', () => {
    const { rec, sink } = setup();
    sink(attempt({ provider: 'gone', outcome: 'unavailable', status: 503 }));
    sink(
      request({ reason: 'last_resort', model: undefined, degraded: 'template', failureClass: 'unavailable' }),
    );
    const [server, client] = rec.spans;
    expect(client?.attributes).toMatchObject({ 'gen_ai.provider.name': 'gone', 'gen_ai.request.model': 'a' });
    expect(server?.errorType).toBeUndefined();
    expect(server?.attributes).toMatchObject({
      'switchyard.degraded': 'template',
      'switchyard.reason': 'last_resort',
    });
  });

  it('keeps at most maxOpen request spans open; the oldest is forgotten, never ended', () => {
    const { rec, tracing, sink } = setup();
    tracing.open('r1', undefined).answered(200, true);
    tracing.open('r2', undefined).answered(200, true);
    tracing.open('r3', undefined).answered(200, true);
    sink(request({ requestId: 'r1' }));
    // r1 was forgotten: its line opens (and ends) a span of its own.
    expect(rec.spans).toHaveLength(4);
    expect(rec.spans[0]?.endMs).toBeUndefined();
    expect(rec.spans[3]?.endMs).toBe(1_000);
  });
});
