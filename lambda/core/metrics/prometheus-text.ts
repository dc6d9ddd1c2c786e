/**
 * The Prometheus text exposition format, version 0.0.4 (docs/operations.md#metrics), written by
 * hand: a few rules, no dependency in the Lambda bundle.
 */

/** The content type a scraper expects for this format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export type Labels = Readonly<Record<string, string>>;

/** One line of a family: `name` is the family's, plus `suffix` (`_bucket`, `_sum`, `_count`). */
export interface Sample {
  suffix?: '_bucket' | '_sum' | '_count' | undefined;
  labels: Labels;
  value: number;
}

/** A metric family: its `# HELP` and `# TYPE` lines, then its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: readonly Sample[];
}

/** Metric and label names Prometheus accepts. */
export const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * A sample value: `+Inf`, `-Inf`, `NaN`, an integer as is, any other number to 15 significant
 * digits, so a sum of prices reads `0.0000087`, not `0.000008700000000000001`.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
}

function formatLabels(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => {
    if (!LABEL_NAME.test(k) || k.startsWith('__')) throw new Error(`invalid label name '${k}'`);
    return `${k}="${escapeLabel(v)}"`;
  });
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** The whole exposition: families in the order given, each with HELP, TYPE and its samples; ends with a newline. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name '${family.name}'`);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const s of family.samples) {
      lines.push(`${family.name}${s.suffix ?? ''}${formatLabels(s.labels)} ${formatValue(s.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
