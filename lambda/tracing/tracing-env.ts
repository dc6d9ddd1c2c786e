import * as z from 'zod';

/** `service.name` of Switchyard's spans when `OTEL_SERVICE_NAME` is not set. Default `switchyard`. */
export const DEFAULT_SERVICE_NAME = 'switchyard';

/** The OTLP/HTTP default endpoint (an OpenTelemetry Collector or Jaeger on this machine). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item !== ''),
  );
const url = (name: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.url({ error: `${name} must be a URL such as http://localhost:4318` }).optional());

const tracingEnvSchema = z.object({
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_TRACES_EXPORTER: list,
  OTEL_EXPORTER_OTLP_ENDPOINT: url('OTEL_EXPORTER_OTLP_ENDPOINT'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
});

/** Where spans go, when traces are on. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  tracesUrl: string;
  serviceName: string;
}

/**
 * Traces are on when `OTEL_TRACES_EXPORTER` names `otlp` and `OTEL_SDK_DISABLED` is not `true`;
 * off by default (unlike the OpenTelemetry SDK's own default) so nothing is loaded unasked. The
 * URL is `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` +
 * `/v1/traces`. A variable that is not a URL is an error naming it.
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const parsed = tracingEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') ?? 'OTEL_*'}: ${issue?.message ?? 'invalid'}`);
  }
  const vars = parsed.data;
  if (vars.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (!vars.OTEL_TRACES_EXPORTER.includes('otlp')) return undefined;
  const base = (vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, '');
  return {
    tracesUrl: vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    serviceName: vars.OTEL_SERVICE_NAME ?? DEFAULT_SERVICE_NAME,
  };
}
