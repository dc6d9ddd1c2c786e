import { setBounded } from '../bounded-map.js';
import type {
  AttemptLedgerEntry,
  LedgerEntry,
  LedgerSink,
  RequestLedgerEntry,
} from '../ledger/ledger-entry.js';
import {
  attemptAttributes,
  GEN_AI_OPERATION,
  type GenAiOperation,
  type RouteLookup,
  requestAttributes,
  requestErrorType,
} from './span-attributes.js';
import type { SpanTracer, TraceSpan } from './span-port.js';

/** Requests whose span may be open at once; past it the oldest is forgotten (never exported). Default 10000. */
export const OPEN_REQUEST_SPANS = 10_000;

export interface RequestTracingDeps {
  tracer: SpanTracer;
  /** ms since the epoch. */
  now: () => number;
  routes: RouteLookup;
  /** Default {@link OPEN_REQUEST_SPANS}. */
  maxOpen?: number | undefined;
}

/** The span of one HTTP request while its answer is under way. */
export interface OpenRequest {
  /**
   * The HTTP answer is ready (a stream's headers). `routed`: the answer came from the router, whose
   * request line ends the span (a stream's after its last chunk); otherwise the span ends now.
   */
  answered(status: number, routed: boolean): void;
}

/** Spans per request and per attempt (docs/design.md#traces), written from the ledger lines. */
export interface RequestTracing {
  /** Wraps a ledger sink: each attempt line becomes a child span, the request line ends its request's span. */
  ledger(sink: LedgerSink): LedgerSink;
  /**
   * Opens the span of an HTTP request, a child of the caller's `traceparent` when it is well formed.
   * `operation` names it and its attempts (default `chat`; `/v1/embeddings` opens `embeddings`).
   */
  open(requestId: string, traceparent: string | undefined, operation?: GenAiOperation): OpenRequest;
}

interface RequestState {
  span: TraceSpan;
  operation: GenAiOperation;
  /** The router wrote a line for this request: it ends with its request line. */
  routed: boolean;
  requestLine: boolean;
  answered: boolean;
  /** The last attempt's route: the answering one when the request line names a model. */
  last?: { model: string; provider: string } | undefined;
}

/**
 * Every line the ledger gets reaches the tracer too, so a span holds exactly what the ledger
 * holds (no prompt, output or key). A run without an HTTP request (a job) gets its request span
 * from its first line; its start is then that attempt's.
 */
export function createRequestTracing(deps: RequestTracingDeps): RequestTracing {
  const open = new Map<string, RequestState>();
  const limit = deps.maxOpen ?? OPEN_REQUEST_SPANS;
  const start = (
    requestId: string,
    startMs: number,
    http: boolean,
    traceparent?: string,
    operation: GenAiOperation = GEN_AI_OPERATION,
  ): RequestState => {
    const attributes = { 'gen_ai.operation.name': operation, 'switchyard.request_id': requestId };
    const span = deps.tracer.startSpan(operation, {
      kind: 'server',
      startMs,
      attributes,
      traceparent,
    });
    const state: RequestState = { span, operation, routed: false, requestLine: false, answered: !http };
    setBounded(open, requestId, state, limit);
    return state;
  };
  const close = (requestId: string, state: RequestState) => {
    state.span.end(deps.now());
    if (open.get(requestId) === state) open.delete(requestId);
  };
  const routed = (entry: LedgerEntry): RequestState => {
    const state = open.get(entry.requestId) ?? start(entry.requestId, deps.now() - entry.latencyMs, false);
    state.routed = true;
    return state;
  };

  const onLine = (entry: LedgerEntry) => {
    const state = routed(entry);
    if (entry.type === 'attempt') {
      attemptSpan(deps, state, entry);
      state.last = { model: entry.model, provider: entry.provider };
    } else {
      endRequest(deps, state, entry);
      state.requestLine = true;
      if (state.answered) close(entry.requestId, state);
    }
  };

  return {
    ledger: (sink) => (entry) => {
      sink(entry);
      onLine(entry);
    },
    open(requestId, traceparent, operation) {
      const state = start(requestId, deps.now(), true, traceparent, operation);
      return {
        answered(status, routed) {
          state.answered = true;
          state.span.setAttributes({ 'http.response.status_code': status });
          if (state.requestLine) return close(requestId, state);
          if (routed || state.routed) return;
          if (status >= 400) state.span.fail(String(status));
          close(requestId, state);
        },
      };
    },
  };
}

/** One attempt's span: a child of its request's, from its start to the line written when it ended. */
function attemptSpan(
  deps: RequestTracingDeps,
  { span: parent, operation }: RequestState,
  entry: AttemptLedgerEntry,
): void {
  const route = deps.routes(entry.model, entry.provider);
  const endMs = deps.now();
  const attributes = attemptAttributes(entry, route, operation);
  const name = `${operation} ${route?.model ?? entry.model}`;
  const span = deps.tracer.startSpan(name, {
    kind: 'client',
    startMs: endMs - entry.latencyMs,
    attributes,
    parent,
  });
  if (entry.outcome !== 'ok') span.fail(entry.outcome);
  span.end(endMs);
}

function endRequest(
  deps: RequestTracingDeps,
  { span, last, operation }: RequestState,
  entry: RequestLedgerEntry,
): void {
  const answering =
    entry.model !== undefined && last?.model === entry.model
      ? deps.routes(last.model, last.provider)
      : undefined;
  span.rename(`${operation} ${entry.pipeline}`);
  span.setAttributes(requestAttributes(entry, answering));
  const errorType = requestErrorType(entry);
  if (errorType) span.fail(errorType);
}
