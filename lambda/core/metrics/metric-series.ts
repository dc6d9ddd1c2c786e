/**
 * Counters and histograms keyed by their label values, in memory. Label values come from the
 * config's names (pipelines, models, providers) and fixed vocabularies, so the series are bounded.
 */
import type { Labels, MetricFamily, MetricType, Sample } from './prometheus-text.js';

interface Series<V> {
  labels: Labels;
  value: V;
}

/** A map of series by their label values, in first-seen order. */
function seriesMap<V>() {
  const map = new Map<string, Series<V>>();
  return {
    get(labels: Labels, init: () => V): Series<V> {
      const key = JSON.stringify(Object.values(labels));
      let series = map.get(key);
      if (!series) {
        series = { labels: { ...labels }, value: init() };
        map.set(key, series);
      }
      return series;
    },
    values: () => map.values(),
  };
}

/** A monotonic counter per label set. */
export interface Counter {
  inc(labels: Labels, by?: number): void;
  family(): MetricFamily;
}

export function createCounter(name: string, help: string): Counter {
  const series = seriesMap<number>();
  return {
    inc(labels, by = 1) {
      series.get(labels, () => 0).value += by;
    },
    family: () =>
      family(
        name,
        help,
        'counter',
        [...series.values()].map((s) => ({ ...s })),
      ),
  };
}

interface HistogramValue {
  /** Count per bucket (not cumulative); the last one is `+Inf`. */
  counts: number[];
  sum: number;
}

/** A histogram per label set, with fixed upper bounds. */
export interface Histogram {
  observe(labels: Labels, value: number): void;
  family(): MetricFamily;
}

/** `bounds`: ascending upper bounds; `+Inf` is added. */
export function createHistogram(name: string, help: string, bounds: readonly number[]): Histogram {
  const series = seriesMap<HistogramValue>();
  return {
    observe(labels, value) {
      const s = series.get(labels, () => ({ counts: new Array(bounds.length + 1).fill(0), sum: 0 })).value;
      const found = bounds.findIndex((b) => value <= b);
      const i = found === -1 ? bounds.length : found;
      s.counts[i] = (s.counts[i] ?? 0) + 1;
      s.sum += value;
    },
    family: () =>
      family(
        name,
        help,
        'histogram',
        [...series.values()].flatMap((s) => histogramSamples(s, bounds)),
      ),
  };
}

function histogramSamples({ labels, value }: Series<HistogramValue>, bounds: readonly number[]): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  value.counts.forEach((count, i) => {
    cumulative += count;
    const le = i < bounds.length ? String(bounds[i]) : '+Inf';
    samples.push({ suffix: '_bucket', labels: { ...labels, le }, value: cumulative });
  });
  samples.push({ suffix: '_sum', labels, value: value.sum });
  samples.push({ suffix: '_count', labels, value: cumulative });
  return samples;
}

function family(name: string, help: string, type: MetricType, samples: Sample[]): MetricFamily {
  return { name, help, type, samples };
}
