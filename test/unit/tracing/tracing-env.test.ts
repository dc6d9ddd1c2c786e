import { describe, expect, it } from 'vitest';
import { tracingSettings } from '../../../lambda/tracing/tracing-env.js';

describe('tracing settings from OTEL_* variables', () => {
  it('is off unless OTEL_TRACES_EXPORTER names otlp', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console, OTLP' })).toBeDefined();
  });

  it('is off when OTEL_SDK_DISABLED is true, whatever the exporter', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it('sends to localhost:4318/v1/traces as service switchyard by default', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      tracesUrl: 'http://localhost:4318/v1/traces',
      serviceName: 'switchyard',
    });
  });

  it('appends /v1/traces to the base endpoint, and takes the traces endpoint as given', () => {
    const base = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' };
    expect(tracingSettings(base)?.tracesUrl).toBe('http://collector:4318/v1/traces');
    const exact = { ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/custom' };
    expect(tracingSettings(exact)?.tracesUrl).toBe('http://jaeger:4318/custom');
    expect(tracingSettings({ ...base, OTEL_SERVICE_NAME: 'edge' })?.serviceName).toBe('edge');
  });

  it('names the variable that is not a URL', () => {
    expect(() =>
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }),
    ).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT: OTEL_EXPORTER_OTLP_ENDPOINT must be a URL/);
  });
});
