import type { SpanTracer } from '../core/tracing/span-port.js';
import { tracingSettings } from './tracing-env.js';

/** A running tracer and how to flush and stop it. */
export interface StartedTracing {
  tracer: SpanTracer;
  /** Where spans go: the OTLP/HTTP URL, or the provider registered before Switchyard started. */
  destination: string;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts traces when the `OTEL_*` variables ask for them (docs/operations.md#traces), else
 * undefined. Off, nothing of OpenTelemetry is loaded: the SDK is imported only here, lazily.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<StartedTracing | undefined> {
  const settings = tracingSettings(env);
  if (!settings) return undefined;
  const { startOtelSdk } = await import('./otel-sdk.js');
  return startOtelSdk(settings);
}
