import { ProxyTracerProvider, type TracerProvider, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { otelSpanTracer, TRACER_NAME } from './otel-span-tracer.js';
import type { StartedTracing } from './start-tracing.js';
import type { TracingSettings } from './tracing-env.js';

/** The API's no-op provider: what an empty proxy delegates to (one instance per API copy). */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** A provider someone registered before us (the ADOT Lambda layer's wrapper, a `--require`d SDK). */
function registeredProvider(): TracerProvider | undefined {
  const global = trace.getTracerProvider();
  // Another copy of the API registers its own proxy class: that is a registration too.
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  return delegate === NOOP_PROVIDER ? undefined : delegate;
}

/**
 * The OpenTelemetry SDK with an OTLP/HTTP exporter, loaded only when traces are on
 * (start-tracing imports this file lazily). A provider already registered is used as it is.
 */
export function startOtelSdk(settings: TracingSettings): StartedTracing {
  const existing = registeredProvider();
  if (existing) {
    const tracer = otelSpanTracer(existing.getTracer(TRACER_NAME));
    return { tracer, destination: 'the tracer provider already registered', shutdown: async () => {} };
  }
  const exporter = new OTLPTraceExporter({ url: settings.tracesUrl });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: otelSpanTracer(provider.getTracer(TRACER_NAME)),
    destination: settings.tracesUrl,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
    },
  };
}
