/**
 * Callers' patterns on V8's backtracking engine (ajv's default) against RE2 (re2js, what the
 * gateway runs): the check of normal answers, the ReDoS answer of issue 26 (`^(a|a)*$` against
 * `a`s and a `!`), a `$ref` schema that branches at every level, and the dearest check the default
 * bounds allow. The V8 attack rows stop at 24 `a`s: every further `a` doubles the time.
 * Printed by `npm run bench:structured-output`.
 */
import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import {
  createAjvSchemaValidator,
  DEFAULT_SCHEMA_BOUNDS,
} from '../../lambda/validation/ajv-schema-validator.js';

const AJV_OPTIONS = { allErrors: true, strict: false, logger: false, validateFormats: false } as const;

const patterned = () => ({
  type: 'object',
  properties: {
    ticket: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$' },
    opened: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' } },
  },
  patternProperties: { '^x-': { type: 'string' } },
  required: ['ticket', 'email', 'opened'],
});
const patternedAnswer = {
  ticket: 'OPS-1234',
  email: 'first.last@example.com',
  opened: '2026-12-01',
  tags: ['dashboard', 'login', 'sso-2'],
  'x-source': 'mail',
};
const redos = () => ({ type: 'string', pattern: '^(a|a)*$' });
const branching = () => ({
  anyOf: [
    { type: 'array', items: { $ref: '#' } },
    { type: 'array', items: { $ref: '#' } },
    { type: 'number' },
  ],
});
const nestedArrays = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

type Check = (value: unknown) => unknown;
const v8 = (schema: object): Check => new Ajv(AJV_OPTIONS).compile(schema);
async function re2(schema: Record<string, unknown>): Promise<Check> {
  const compiled = await createAjvSchemaValidator().compile(schema);
  if (!compiled.ok) throw new Error(compiled.problem);
  return compiled.check;
}

/** µs per run of `fn` (after a warm-up), or one timed run for the slow rows. */
function time(runs: number, fn: () => unknown): number {
  // One run is timed cold: no warm-up.
  for (let i = 0; i < Math.min(runs > 1 ? runs : 0, 200); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1_000 / runs;
}
const ms = (us: number) => (us / 1_000).toFixed(us < 10_000 ? 3 : 1);

/** The table's rows: what, engine, time of one check in ms. */
export async function regexEngineRows(): Promise<string[][]> {
  const rows: string[][] = [];
  const [v8Patterned, re2Patterned] = [v8(patterned()), await re2(patterned())];
  rows.push(['normal answer, 5 patterns', 'V8', ms(time(20_000, () => v8Patterned(patternedAnswer)))]);
  rows.push(['normal answer, 5 patterns', 'RE2', ms(time(20_000, () => re2Patterned(patternedAnswer)))]);
  const v8Redos = v8(redos());
  for (const n of [18, 20, 22, 24])
    rows.push([`^(a|a)*$ on ${n} a + '!'`, 'V8', ms(time(1, () => v8Redos(`${'a'.repeat(n)}!`)))]);
  const re2Redos = await re2(redos());
  for (const n of [30, 1_000, 20_000])
    rows.push([
      `^(a|a)*$ on ${n} a + '!'`,
      'RE2',
      ms(time(n > 1_000 ? 5 : 200, () => re2Redos(`${'a'.repeat(n)}!`))),
    ]);
  rows.push([
    "^(a|a)*$ on 30000 a + '!' (over maxPatternWork: refused before it runs)",
    'RE2',
    ms(time(5, () => re2Redos(`${'a'.repeat(30_000)}!`))),
  ]);
  const [v8Branching, re2Branching] = [v8(branching()), await re2(branching())];
  rows.push(['$ref branching ×2, answer 16 deep', 'V8', ms(time(1, () => v8Branching(nestedArrays(16))))]);
  rows.push([
    `$ref branching ×2, answer 40 deep (stops at maxRefSteps ${DEFAULT_SCHEMA_BOUNDS.maxRefSteps})`,
    'RE2',
    ms(time(3, () => re2Branching(nestedArrays(40)))),
  ]);
  // The dearest checks the default maxPatternWork admits: a large RE2 program on a string long
  // enough to spend the whole bound; on the first (DFA fits) and on the second (it does not).
  // The dearest checks the default bounds admit (programs near maxPatternProgram, strings that
  // spend maxPatternWork), timed on a freshly compiled pattern: RE2 builds its DFA states on first use.
  for (const dear of ['^((a|aa){1,13}){1,10}$', '^(a|aa){1,70}(b|bb){1,70}$', '^[a-z]{1,495}$']) {
    const program = RE2JS.compile(dear).programSize();
    const length = Math.floor(DEFAULT_SCHEMA_BOUNDS.maxPatternWork / program) - 1;
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const check = await re2({ type: 'string', pattern: dear, title: `run ${i}` });
      runs.push(time(1, () => check(`${'a'.repeat(length - 1)}!`)));
    }
    rows.push([`${dear}: program ${program} on ${length} chars, first check`, 'RE2', ms(Math.max(...runs))]);
  }
  return rows;
}
