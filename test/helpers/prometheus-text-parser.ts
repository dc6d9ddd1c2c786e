/**
 * A strict reader of the Prometheus text format 0.0.4, for tests: it throws, naming the line, on
 * anything a Prometheus server would refuse or that breaks the format's rules (unknown TYPE, a
 * family split in two, a duplicate series, a histogram without `+Inf` or with falling buckets...),
 * and returns every sample otherwise.
 */

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  type: string;
  help: string | undefined;
  samples: ParsedSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]Inf|NaN)$/;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL_PAIR = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const m = LABEL_PAIR.exec(rest);
    if (!m) throw new Error(`line ${line}: bad label set {${text}}`);
    const [all, name = '', raw = ''] = m;
    if (name in labels) throw new Error(`line ${line}: label ${name} twice`);
    labels[name] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.length > 0) throw new Error(`line ${line}: expected , between labels in {${text}}`);
  }
  return labels;
}

function parseValue(text: string, line: number): number {
  if (!VALUE.test(text)) throw new Error(`line ${line}: bad value '${text}'`);
  return text.endsWith('Inf') ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text);
}

/** The family a sample belongs to: for a histogram, its name without `_bucket`/`_sum`/`_count`. */
function familyOf(name: string, families: Map<string, ParsedFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && families.get(base)?.type === 'histogram') return base;
  }
  return name;
}

export function parsePrometheusText(text: string): Map<string, ParsedFamily> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, ParsedFamily>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw === '') throw new Error(`line ${line}: empty line`);
    const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(raw);
    const enter = (name: string) => {
      if (current !== name) {
        if (current !== undefined) closed.add(current);
        if (closed.has(name)) throw new Error(`line ${line}: family ${name} appears in two places`);
        current = name;
      }
      const found = families.get(name);
      if (found) return found;
      const created: ParsedFamily = { name, type: 'untyped', help: undefined, samples: [] };
      families.set(name, created);
      return created;
    };
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      const f = enter(name);
      if (kind === 'HELP') {
        if (f.help !== undefined) throw new Error(`line ${line}: second HELP for ${name}`);
        f.help = rest;
      } else {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown TYPE '${rest}'`);
        if (f.samples.length > 0 || seen.has(`type:${name}`))
          throw new Error(`line ${line}: TYPE for ${name} after its samples or twice`);
        seen.add(`type:${name}`);
        f.type = rest;
      }
      return;
    }
    if (raw.startsWith('#')) throw new Error(`line ${line}: comment that is neither HELP nor TYPE`);
    const m = SAMPLE.exec(raw);
    if (!m) throw new Error(`line ${line}: not a sample: ${raw}`);
    const [, name = '', labelText, valueText = ''] = m;
    const labels = labelText === undefined ? {} : parseLabels(labelText, line);
    const value = parseValue(valueText, line);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`line ${line}: duplicate series ${series}`);
    seen.add(series);
    const f = enter(familyOf(name, families));
    if (f.type === 'counter' && !(value >= 0)) throw new Error(`line ${line}: counter below zero`);
    f.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** Per label set: `le` ascending, cumulative counts never falling, `+Inf` last and equal to `_count`, a `_sum`. */
function checkHistogram(f: ParsedFamily): void {
  const groups = new Map<string, { les: number[]; counts: number[]; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const g = groups.get(key) ?? { les: [], counts: [] };
    groups.set(key, g);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: bucket without le`);
      g.les.push(parseValue(le, 0));
      g.counts.push(s.value);
    } else if (s.name === `${f.name}_count`) g.count = s.value;
    else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else throw new Error(`${f.name}: unexpected sample ${s.name}`);
  }
  for (const [key, g] of groups) {
    const where = `${f.name}${key}`;
    if (g.les.at(-1) !== Infinity) throw new Error(`${where}: no +Inf bucket last`);
    g.les.forEach((le, i) => {
      if (i > 0 && !(le > (g.les[i - 1] ?? 0))) throw new Error(`${where}: le not ascending`);
      if (i > 0 && (g.counts[i] ?? 0) < (g.counts[i - 1] ?? 0)) throw new Error(`${where}: buckets fall`);
    });
    if (g.count !== g.counts.at(-1)) throw new Error(`${where}: _count differs from the +Inf bucket`);
    if (g.sum === undefined) throw new Error(`${where}: no _sum`);
  }
}

/** The sum of the samples named `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(
  families: Map<string, ParsedFamily>,
  name: string,
  labels: Record<string, string>,
): number {
  const matches = [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return matches.reduce((sum, s) => sum + s.value, 0);
}
