/** A span attribute value: never prompt or output text, never a key (docs/design.md#traces). */
export type SpanValue = string | number | boolean;

/** Attributes of a span; `undefined` values are left out. */
export type SpanAttributes = Readonly<Record<string, SpanValue | undefined>>;

/** `server`: the request as the caller sent it; `client`: one upstream attempt. */
export type SpanKind = 'server' | 'client';

/** One span while it is open. */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  rename(name: string): void;
  /** Marks the span failed; `errorType` becomes `error.type`, a low-cardinality class name. */
  fail(errorType: string): void;
  /** Ends the span at `atMs` (ms since the epoch). */
  end(atMs: number): void;
}

export interface SpanStart {
  kind: SpanKind;
  /** ms since the epoch. */
  startMs: number;
  attributes: SpanAttributes;
  /** The span this one is a child of. */
  parent?: TraceSpan | undefined;
  /** The caller's W3C `traceparent` header, honoured when no `parent` is given and it is well formed. */
  traceparent?: string | undefined;
}

/**
 * The tracer the gateway writes spans to, injected like the ledger sink: the OpenTelemetry API at
 * the edge (lambda/tracing), an array in tests. lambda/core imports no tracing SDK.
 */
export interface SpanTracer {
  startSpan(name: string, start: SpanStart): TraceSpan;
}
