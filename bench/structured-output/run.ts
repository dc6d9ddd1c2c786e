/**
 * What checking structured output costs per answer: loading ajv (the first schema a process
 * sees), compiling a caller's schema (a cache miss), finding it compiled (a hit), and checking an
 * answer (parse + validate), fenced or not; then callers' patterns on V8 against RE2
 * (bench/structured-output/regex-engines.ts). Prints two tables; no assertion.
 * `npm run bench:structured-output`
 */
import { checkJsonAnswer, type JsonCheck } from '../../lambda/core/output/json-answer.js';
import { createAjvSchemaValidator } from '../../lambda/validation/ajv-schema-validator.js';
import { regexEngineRows } from './regex-engines.js';

const schema = () => ({
  type: 'object',
  properties: {
    category: { enum: ['billing', 'outage', 'account', 'other'] },
    priority: { type: 'integer', minimum: 1, maximum: 5 },
    summary: { type: 'string', maxLength: 400 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
  },
  required: ['category', 'priority', 'summary'],
  additionalProperties: false,
});
const answer = JSON.stringify({
  category: 'outage',
  priority: 2,
  summary: 'The customer cannot reach the dashboard since 09:00; status page shows no incident.',
  tags: ['dashboard', 'login'],
});

async function time(label: string, runs: number, fn: (i: number) => unknown): Promise<string[]> {
  for (let i = 0; i < Math.min(runs, 1_000); i++) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await fn(i);
  const us = Number(process.hrtime.bigint() - start) / 1_000 / runs;
  return [label, String(runs), us.toFixed(2)];
}

async function checkFor(): Promise<JsonCheck> {
  const compiled = await createAjvSchemaValidator().compile(schema());
  if (!compiled.ok) throw new Error(compiled.problem);
  return { type: 'json_schema', check: compiled.check };
}

const loadStart = process.hrtime.bigint();
await createAjvSchemaValidator().compile(schema());
const loadUs = Number(process.hrtime.bigint() - loadStart) / 1_000;

const validator = createAjvSchemaValidator();
const hits = createAjvSchemaValidator();
const check = await checkFor();
const fenced = `\`\`\`json\n${answer}\n\`\`\``;
const rows = [
  ['first schema of a process (loads ajv, then compiles)', '1', loadUs.toFixed(2)],
  await time('compile a new schema (cache miss)', 2_000, (i) =>
    validator.compile({ ...schema(), title: `s${i}` }),
  ),
  await time('find a compiled schema (cache hit, hash of its JSON)', 20_000, () => hits.compile(schema())),
  await time('check a valid answer (parse + validate)', 50_000, () => checkJsonAnswer(answer, check)),
  await time('check a fenced answer (strip + parse + validate)', 50_000, () =>
    checkJsonAnswer(fenced, check),
  ),
];

const widths = [54, 8, 10];
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
console.log(line(['operation', 'runs', 'µs each']));
for (const row of rows) console.log(line(row));

// Callers' patterns: V8's backtracking engine (ajv's default) against RE2 (what the gateway runs).
const engineRows = await regexEngineRows();
const engineWidths = [72, 6, 12];
const engineLine = (cells: string[]) =>
  cells
    .map((c, i) => (i === 0 ? c.padEnd(engineWidths[i] ?? 0) : c.padStart(engineWidths[i] ?? 0)))
    .join('  ');
console.log('');
console.log(engineLine(['check', 'engine', 'ms each']));
for (const row of engineRows) console.log(engineLine(row));
