import type { Dimensions, MetricDimensions } from '../core/metrics/metric-dimensions.js';

/**
 * CloudWatch metrics as Embedded Metric Format log records, buffered per invocation and written
 * when the invocation's work is done. One record carries several metric directives (one per
 * dimension set), so the metrics of one request — each counted per service and per pipeline (and
 * model) — share one log line instead of two each: for a single-attempt request one record in
 * place of six (docs/operations.md, what it costs). Powertools' `Metrics` puts every metric under
 * every dimension set of its one directive, which would bill metrics nobody asked for, and warns
 * on every flush with nothing to publish; this writer writes nothing then.
 */

/** The CloudWatch units the gateway's metrics use. */
export type EmfUnit = 'Count' | 'Milliseconds' | 'Percent';

/** EMF's limit of values per metric in one record. */
const MAX_VALUES = 100;

/** A metric buffer that a handler flushes once per invocation. */
export interface EmfMetrics {
  /**
   * Buffers one value of `name`, counted once per service and once under `dimensions`, each value
   * through the bounding rule (`options.dimensions`). With no dimensions, once per service only.
   */
  add(name: string, unit: EmfUnit, value: number, dimensions: Dimensions): void;
  /** Counts the container's first invocation as `ColdStart`, per service and function name. */
  coldStart(functionName: string): void;
  /** Writes the buffered metrics (one record per compatible group; nothing when empty) and clears the buffer. */
  flush(): void;
}

interface Directive {
  names: string[];
  metrics: Map<string, EmfUnit>;
}

/** One record being built: its dimension values, its directives by dimension set, its values. */
interface RecordDraft {
  dimensions: Record<string, string>;
  directives: Map<string, Directive>;
  values: Map<string, { set: string; values: number[] }>;
}

export interface EmfMetricsOptions {
  namespace: string;
  /** The `service` dimension of every metric. */
  service: string;
  /** The rule every dimension value goes through (docs/operations.md#metrics). */
  dimensions: MetricDimensions;
  /** Writes one line (default: stdout, which Lambda sends to CloudWatch Logs). */
  write?: (line: string) => void;
  /** Default `Date.now`. */
  now?: () => number;
}

export function createEmfMetrics(options: EmfMetricsOptions): EmfMetrics {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  let drafts: RecordDraft[] = [];
  let coldStart = true;

  /** A draft whose dimension values agree with `dims` and that holds `name` under `set` or not at all. */
  const draftFor = (name: string, set: string, dims: Record<string, string>): RecordDraft => {
    const fits = (d: RecordDraft) => {
      const held = d.values.get(name);
      if (held && (held.set !== set || held.values.length >= MAX_VALUES)) return false;
      return Object.entries(dims).every(([k, v]) => d.dimensions[k] === undefined || d.dimensions[k] === v);
    };
    let draft = drafts.find(fits);
    if (!draft) {
      draft = { dimensions: {}, directives: new Map(), values: new Map() };
      drafts.push(draft);
    }
    Object.assign(draft.dimensions, dims);
    return draft;
  };

  const direct = (draft: RecordDraft, names: string[], name: string, unit: EmfUnit) => {
    const key = names.join('\u0000');
    let directive = draft.directives.get(key);
    if (!directive) {
      directive = { names, metrics: new Map() };
      draft.directives.set(key, directive);
    }
    directive.metrics.set(name, unit);
  };

  const buffer = (
    name: string,
    unit: EmfUnit,
    value: number,
    dimensions: Readonly<Record<string, string>>,
  ) => {
    const names = Object.keys(dimensions);
    const set = names.join('\u0000');
    const draft = draftFor(name, set, { service: options.service, ...dimensions });
    const held = draft.values.get(name) ?? { set, values: [] };
    held.values.push(value);
    draft.values.set(name, held);
    direct(draft, ['service'], name, unit);
    if (names.length > 0) direct(draft, ['service', ...names], name, unit);
  };

  return {
    add: (name, unit, value, dimensions) => buffer(name, unit, value, options.dimensions.bound(dimensions)),
    coldStart(functionName) {
      if (!coldStart) return;
      coldStart = false;
      // The function's own name, set by the stack: not a caller's value.
      buffer('ColdStart', 'Count', 1, { function_name: functionName });
    },
    flush() {
      const timestamp = now();
      for (const draft of drafts) {
        const record: Record<string, unknown> = {
          _aws: {
            Timestamp: timestamp,
            CloudWatchMetrics: [...draft.directives.values()].map((d) => ({
              Namespace: options.namespace,
              Dimensions: [d.names],
              Metrics: [...d.metrics].map(([Name, Unit]) => ({ Name, Unit })),
            })),
          },
          ...draft.dimensions,
        };
        for (const [name, held] of draft.values)
          record[name] = held.values.length === 1 ? held.values[0] : held.values;
        write(JSON.stringify(record));
      }
      drafts = [];
    },
  };
}

/**
 * A middy middleware that writes the buffer when the handler has finished, whether it succeeded
 * or failed (the worker's and the scheduler's; the API Lambda flushes after its streamed body).
 */
export function flushEmfMetrics(metrics: EmfMetrics): { after: () => void; onError: () => void } {
  return { after: () => metrics.flush(), onError: () => metrics.flush() };
}
