/**
 * The gateway's Prometheus metrics (docs/operations.md#metrics), fed from the same evidence as the
 * ledger: every ledger line and every breaker opening passes through here, so a counter and the
 * ledger lines it counts never disagree. Breaker gauges are read from the breakers when scraped.
 */
import type { BreakerOpened } from '../breaker/breakers.js';
import type { BreakerView } from '../gateway/gateway.js';
import type { AttemptLedgerEntry, LedgerEntry, RequestLedgerEntry } from '../ledger/ledger-entry.js';
import { createMetricDimensions, type MetricDimensions } from './metric-dimensions.js';
import { createCounter, createHistogram } from './metric-series.js';
import type { MetricFamily } from './prometheus-text.js';

export interface GatewayMetrics {
  /** Counts one ledger line. */
  record(entry: LedgerEntry): void;
  /** Counts one breaker opening. */
  opened(event: BreakerOpened): void;
  /** Every family, the breaker gauges built from `breakers` (each with the provider of its route). */
  families(breakers: readonly (BreakerView & { provider: string })[]): MetricFamily[];
}

/**
 * `latencyBucketsMs`: the histograms' upper bounds in ms (config `metrics.latencyBucketsMs`);
 * `dimensions`: the rule every `pipeline` and `model`/`route` label value goes through, the same as
 * the CloudWatch metrics' (`metric-dimensions.ts`; default: pipelines by `stateScope`, any model),
 * so only configured names, one per override variable and `(ad-hoc)` ever become label values.
 */
export function createGatewayMetrics(
  latencyBucketsMs: readonly number[],
  dimensions: MetricDimensions = createMetricDimensions(),
): GatewayMetrics {
  const pipelineLabel = dimensions.pipeline;
  const modelLabel = dimensions.model;
  const seconds = latencyBucketsMs.map((ms) => ms / 1000);
  const requests = createCounter(
    'switchyard_requests_total',
    'Requests ended, by pipeline and terminal reason.',
  );
  const requestSeconds = createHistogram(
    'switchyard_request_duration_seconds',
    'Time from the first attempt to the end of a request, by pipeline and terminal reason.',
    seconds,
  );
  const attempts = createCounter(
    'switchyard_attempts_total',
    'Upstream attempts, by pipeline, model, provider (the route), action and outcome (ok or a failure class).',
  );
  const attemptSeconds = createHistogram(
    'switchyard_attempt_duration_seconds',
    'Latency of one upstream attempt, by pipeline, model and provider.',
    seconds,
  );
  const spend = createCounter(
    'switchyard_spend_usd_total',
    "US dollars spent on attempts, from the catalog's prices, by pipeline, model and provider.",
  );
  const tokens = createCounter(
    'switchyard_tokens_total',
    'Tokens used by attempts, by pipeline, model, provider and direction (input, output).',
  );
  const continuations = createCounter(
    'switchyard_stream_continuations_total',
    'Streams continued after a break (streaming.afterOutput), by pipeline and terminal reason.',
  );
  const openings = createCounter(
    'switchyard_breaker_openings_total',
    'Breaker openings this process reported, by pipeline, route and reason.',
  );

  const onAttempt = (e: AttemptLedgerEntry) => {
    const route = { pipeline: pipelineLabel(e.pipeline), model: modelLabel(e.model), provider: e.provider };
    attempts.inc({ ...route, action: e.action, outcome: e.outcome });
    attemptSeconds.observe(route, e.latencyMs / 1000);
    if (e.costUsd !== undefined) spend.inc(route, e.costUsd);
    if (e.usage) {
      tokens.inc({ ...route, direction: 'input' }, e.usage.inputTokens);
      tokens.inc({ ...route, direction: 'output' }, e.usage.outputTokens);
    }
  };
  const onRequest = (e: RequestLedgerEntry) => {
    const labels = { pipeline: pipelineLabel(e.pipeline), reason: e.reason };
    requests.inc(labels);
    requestSeconds.observe(labels, e.latencyMs / 1000);
    if (e.continued) continuations.inc(labels);
  };

  return {
    record: (entry) => (entry.type === 'attempt' ? onAttempt(entry) : onRequest(entry)),
    opened: (event) =>
      openings.inc({
        pipeline: pipelineLabel(event.pipeline),
        route: modelLabel(event.model),
        reason: event.reason,
      }),
    families: (breakers) => [
      requests.family(),
      requestSeconds.family(),
      attempts.family(),
      attemptSeconds.family(),
      spend.family(),
      tokens.family(),
      continuations.family(),
      openings.family(),
      ...breakerGauges(breakers, pipelineLabel),
    ],
  };
}

/** `switchyard_breaker_open` (1 open, 0 closed) and the window counts, one series per breaker. */
function breakerGauges(
  views: readonly (BreakerView & { provider: string })[],
  pipelineLabel: (pipeline: string) => string,
): MetricFamily[] {
  const labels = (v: BreakerView & { provider: string }) => ({
    pipeline: pipelineLabel(v.pipeline),
    model: v.model,
    provider: v.provider,
  });
  const gauge = (name: string, help: string, value: (v: BreakerView) => number): MetricFamily => ({
    name,
    help,
    type: 'gauge',
    samples: views.map((v) => ({ labels: labels(v), value: value(v) })),
  });
  return [
    gauge('switchyard_breaker_open', 'Whether a breaker is open (1) or closed (0).', (v) =>
      v.state === 'open' ? 1 : 0,
    ),
    gauge(
      'switchyard_breaker_window_attempts',
      "Attempts in a breaker's sliding window.",
      (v) => v.windowAttempts,
    ),
    gauge(
      'switchyard_breaker_window_failures',
      "Failures counted in a breaker's sliding window.",
      (v) => v.windowFailures,
    ),
  ];
}
