import { describe, expect, it } from 'vitest';
import { stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import { createGatewayMetrics } from '../../../lambda/core/metrics/gateway-metrics.js';
import { createMetricDimensions } from '../../../lambda/core/metrics/metric-dimensions.js';
import { formatValue, renderExposition } from '../../../lambda/core/metrics/prometheus-text.js';
import { attemptLine, requestLine } from '../../helpers/ledger-lines.js';
import { parsePrometheusText, sampleValue } from '../../helpers/prometheus-text-parser.js';

const attempt = attemptLine;

const request = requestLine;

const scrape = (metrics: ReturnType<typeof createGatewayMetrics>) =>
  parsePrometheusText(renderExposition(metrics.families([])));

describe('gateway metrics from ledger lines', () => {
  it('counts attempts by pipeline, model, provider, action and outcome, and requests by terminal reason', () => {
    const m = createGatewayMetrics([100, 1000]);
    m.record(attempt({ outcome: 'rate_limited', status: 429 }));
    m.record(attempt({ attempt: 2, model: 'b', action: 'fallback', step: 'substitute' }));
    m.record(request({ attempts: 2 }));
    m.record(request({ requestId: 'r2', reason: 'exhausted', attempts: 0 }));
    const f = scrape(m);
    expect(sampleValue(f, 'switchyard_attempts_total', { model: 'a', outcome: 'rate_limited' })).toBe(1);
    expect(
      sampleValue(f, 'switchyard_attempts_total', { model: 'b', action: 'fallback', outcome: 'ok' }),
    ).toBe(1);
    expect(sampleValue(f, 'switchyard_requests_total', { pipeline: 'p', reason: 'success' })).toBe(1);
    expect(sampleValue(f, 'switchyard_requests_total', { pipeline: 'p', reason: 'exhausted' })).toBe(1);
  });

  it('counts continued streams by pipeline and terminal reason, and no other request', () => {
    const m = createGatewayMetrics([100]);
    m.record(request({ route: 'a:cut@4,a:continued', continued: { from: 'a', atToken: 4, by: 'a' } }));
    m.record(request({ requestId: 'r2', reason: 'partial', route: 'a:network' }));
    const f = scrape(m);
    expect(
      sampleValue(f, 'switchyard_stream_continuations_total', { pipeline: 'p', reason: 'success' }),
    ).toBe(1);
    expect(sampleValue(f, 'switchyard_stream_continuations_total', { reason: 'partial' })).toBe(0);
  });

  it('puts a latency exactly on a bucket bound into that bucket, and one just above into the next', () => {
    const m = createGatewayMetrics([100, 1000]);
    m.record(attempt({ latencyMs: 100 }));
    m.record(attempt({ latencyMs: 101 }));
    m.record(attempt({ latencyMs: 1001 }));
    const f = scrape(m);
    const bucket = (le: string) => sampleValue(f, 'switchyard_attempt_duration_seconds_bucket', { le });
    expect([bucket('0.1'), bucket('1'), bucket('+Inf')]).toEqual([1, 2, 3]);
    expect(sampleValue(f, 'switchyard_attempt_duration_seconds_sum', {})).toBeCloseTo(1.202, 9);
  });

  it('adds up spend and tokens per route, and keeps attempts without a price out of spend', () => {
    const m = createGatewayMetrics([100]);
    m.record(attempt({ costUsd: 0.25, usage: { inputTokens: 10, outputTokens: 3 } }));
    m.record(attempt({ costUsd: 0.5, usage: { inputTokens: 1, outputTokens: 2 } }));
    m.record(attempt({ model: 'free', usage: { inputTokens: 5, outputTokens: 5 } }));
    const f = scrape(m);
    expect(sampleValue(f, 'switchyard_spend_usd_total', { model: 'a' })).toBe(0.75);
    expect(sampleValue(f, 'switchyard_spend_usd_total', { model: 'free' })).toBe(0);
    expect(sampleValue(f, 'switchyard_tokens_total', { model: 'a', direction: 'input' })).toBe(11);
    expect(sampleValue(f, 'switchyard_tokens_total', { model: 'a', direction: 'output' })).toBe(5);
  });

  it('labels every ad-hoc chain as one pipeline, so callers cannot grow the series without bound', () => {
    const m = createGatewayMetrics([100]);
    m.record(request({ pipeline: 'chain:a,b' }));
    m.record(request({ pipeline: 'chain:b,c' }));
    const f = scrape(m);
    expect(sampleValue(f, 'switchyard_requests_total', { pipeline: '(ad-hoc)' })).toBe(2);
    expect(f.get('switchyard_requests_total')?.samples).toHaveLength(1);
  });

  it('keeps 1,000 distinct ad-hoc chains to one (ad-hoc) label value on every family, and models to configured ones', () => {
    const m = createGatewayMetrics([100], createMetricDimensions({ isModel: (key) => key === 'a' }));
    for (let i = 0; i < 1_000; i += 1) {
      const pipeline = `chain:(a*${i + 1}|b)`;
      m.record(
        attempt({ pipeline, requestId: `r${i}`, costUsd: 0.001, usage: { inputTokens: 1, outputTokens: 1 } }),
      );
      m.record(request({ pipeline, requestId: `r${i}`, clientRequestId: `client-${i}` }));
      // A model outside the config could only come from a defect: it must not mint series either.
      m.record(attempt({ pipeline, requestId: `r${i}`, model: `raw-model-${i}` }));
      m.opened({
        pipeline: i % 2 ? 'adhoc' : pipeline,
        model: 'a',
        reason: 'consecutive_429',
        openUntil: 0,
        recovery: 'window',
        alert: false,
      });
    }
    const f = scrape(m);
    const counted = [...f].filter(([, family]) => family.samples.length > 0);
    expect(counted.length).toBeGreaterThanOrEqual(7);
    for (const [name, family] of counted) {
      const pipelines = new Set(family.samples.map((s) => s.labels.pipeline));
      expect([...pipelines], name).toEqual(['(ad-hoc)']);
      const models = family.samples
        .map((s) => s.labels.model ?? s.labels.route)
        .filter((v) => v !== undefined);
      expect(
        models.filter((v) => v !== 'a' && v !== '(other)'),
        name,
      ).toEqual([]);
    }
    expect(sampleValue(f, 'switchyard_attempts_total', { model: '(other)' })).toBe(1_000);
  });

  it('labels every spelling of a pipeline only an override names by its variable', () => {
    const m = createGatewayMetrics(
      [100],
      createMetricDimensions({ scopeOf: stateScopeIn((pipeline) => pipeline === 'p') }),
    );
    for (const pipeline of ['f-o', 'F.O', 'f\u4e00o', 'p', 'adhoc']) m.record(request({ pipeline }));
    const f = scrape(m);
    expect(sampleValue(f, 'switchyard_requests_total', { pipeline: 'env:MODEL_F_O' })).toBe(3);
    expect(sampleValue(f, 'switchyard_requests_total', { pipeline: '(ad-hoc)' })).toBe(1);
    expect(f.get('switchyard_requests_total')?.samples).toHaveLength(3);
  });

  it('counts breaker openings and shows each breaker as a gauge with its window', () => {
    const m = createGatewayMetrics([100]);
    m.opened({
      pipeline: 'p',
      model: 'a',
      reason: 'consecutive_429',
      openUntil: 0,
      alert: false,
      recovery: 'window',
    });
    const view = {
      pipeline: 'p',
      model: 'a',
      route: null,
      provider: 'fake',
      state: 'open' as const,
      openUntil: null,
      openReason: 'consecutive_429',
      windowAttempts: 2,
      windowFailures: 2,
      consecutive429: 2,
      coolingUntil: null,
      routeCoolingUntil: null,
      routeCooledBy: null,
      recovery: 'window' as const,
      phase: 'open' as const,
      probeStreak: 0,
      nextProbeAt: null,
      rampShare: null,
      rampUntil: null,
    };
    const f = parsePrometheusText(
      renderExposition(m.families([view, { ...view, model: 'b', state: 'closed', windowFailures: 0 }])),
    );
    expect(
      sampleValue(f, 'switchyard_breaker_openings_total', { route: 'a', reason: 'consecutive_429' }),
    ).toBe(1);
    expect(sampleValue(f, 'switchyard_breaker_open', { model: 'a', provider: 'fake' })).toBe(1);
    expect(sampleValue(f, 'switchyard_breaker_open', { model: 'b' })).toBe(0);
    expect(sampleValue(f, 'switchyard_breaker_window_failures', { model: 'a' })).toBe(2);
  });
});

describe('the text format', () => {
  it('escapes label values and help text', () => {
    const text = renderExposition([
      {
        name: 'x_total',
        help: 'back\\slash\nnewline',
        type: 'counter',
        samples: [{ labels: { l: 'quote" back\\ nl\n' }, value: 1 }],
      },
    ]);
    expect(text).toBe(
      '# HELP x_total back\\\\slash\\nnewline\n# TYPE x_total counter\nx_total{l="quote\\" back\\\\ nl\\n"} 1\n',
    );
    expect(sampleValue(parsePrometheusText(text), 'x_total', { l: 'quote" back\\ nl\n' })).toBe(1);
  });

  it('writes the special values the way Prometheus reads them', () => {
    expect([Infinity, -Infinity, Number.NaN, 0.1, 3].map(formatValue)).toEqual([
      '+Inf',
      '-Inf',
      'NaN',
      '0.1',
      '3',
    ]);
  });

  it('refuses a metric or label name Prometheus would not accept', () => {
    expect(() => renderExposition([{ name: '1bad', help: '', type: 'gauge', samples: [] }])).toThrow(/1bad/);
    expect(() =>
      renderExposition([
        { name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'a-b': 'x' }, value: 1 }] },
      ]),
    ).toThrow(/a-b/);
  });
});

describe('the strict reader the tests use refuses what Prometheus would', () => {
  it.each([
    ['no final newline', '# TYPE a counter\na 1'],
    ['an unquoted label', 'a{b=c} 1\n'],
    ['a bad value', 'a 1x\n'],
    ['an unknown type', '# TYPE a foo\na 1\n'],
    ['a family in two places', 'a 1\nb 1\na{x="1"} 2\n'],
    ['a duplicate series', 'a{x="1"} 1\na{x="1"} 2\n'],
    ['TYPE after samples', 'a 1\n# TYPE a gauge\n'],
    ['a negative counter', '# TYPE a counter\na -1\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    [
      'falling buckets',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    ],
    [
      'a _count unlike +Inf',
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n',
    ],
  ])('%s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
