import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { SpanAttributes, SpanStart, SpanTracer, TraceSpan } from '../core/tracing/span-port.js';
import { parseTraceparent } from './traceparent.js';

/** The instrumentation scope name of Switchyard's spans. */
export const TRACER_NAME = 'switchyard';

const defined = (attributes: SpanAttributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;

/** Spans of the gateway's tracer port, through the OpenTelemetry API (whichever provider is registered). */
export function otelSpanTracer(tracer: Tracer = trace.getTracer(TRACER_NAME)): SpanTracer {
  const spans = new WeakMap<TraceSpan, Span>();
  const parentContext = (start: SpanStart): Context => {
    const parent = start.parent && spans.get(start.parent);
    if (parent) return trace.setSpan(ROOT_CONTEXT, parent);
    const ids = parseTraceparent(start.traceparent);
    return ids ? trace.setSpanContext(ROOT_CONTEXT, { ...ids, isRemote: true }) : ROOT_CONTEXT;
  };
  return {
    startSpan(name, start) {
      const kind = start.kind === 'server' ? SpanKind.SERVER : SpanKind.CLIENT;
      const options = { kind, startTime: start.startMs, attributes: defined(start.attributes) };
      const span = tracer.startSpan(name, options, parentContext(start));
      const port: TraceSpan = {
        setAttributes: (attributes) => span.setAttributes(defined(attributes)),
        rename: (next) => span.updateName(next),
        fail(errorType) {
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
        end: (atMs) => span.end(atMs),
      };
      spans.set(port, span);
      return port;
    },
  };
}
