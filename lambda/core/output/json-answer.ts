import type { SchemaCheck } from './schema-validator.js';

/** What an answer must be: any JSON object (`json_object`), or JSON that passes a compiled schema. */
export type JsonCheck = { type: 'json_object' } | { type: 'json_schema'; check: SchemaCheck };

/** A checked answer: its JSON text (without a code fence), or why it was refused. */
export type AnswerCheck = { ok: true; content: string } | { ok: false; errors: string[] };

/** At most this many validation errors are reported, each at most this long. */
const MAX_ERRORS = 10;
const MAX_ERROR_CHARS = 300;

const FENCE = '```';
// A language tag (`json`, `JSON`, `c++`) counts only when whitespace follows it. One character
// class and no nesting: linear on any answer.
const LANGUAGE_TAG = /^[A-Za-z0-9_+-]+(?=\s)/;

/**
 * The text inside one markdown code fence around the whole answer (a substitute model's habit),
 * trimmed: ```` ```json\n{...}\n``` ```` or ```` ```{...}``` ````. Written with string operations:
 * the model's answer is the caller's to shape, and a backtracking regex over it (the former
 * `^\s*```…([\s\S]*?)\s*```\s*$`) took 90 s on a fence and 5,000 spaces.
 */
export function stripJsonFence(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length < 2 * FENCE.length || !trimmed.startsWith(FENCE) || !trimmed.endsWith(FENCE))
    return trimmed;
  const inner = trimmed.slice(FENCE.length, -FENCE.length);
  const tag = LANGUAGE_TAG.exec(inner)?.[0] ?? '';
  return inner.slice(tag.length).trim();
}

const refused = (errors: string[]): AnswerCheck => ({
  ok: false,
  errors: errors
    .slice(0, MAX_ERRORS)
    .map((e) => (e.length > MAX_ERROR_CHARS ? `${e.slice(0, MAX_ERROR_CHARS)}…` : e)),
});

/**
 * Checks an answer against the requested format. The parser's own message is not repeated: it
 * quotes the answer, and answer text never goes into an error that may be logged.
 */
export function checkJsonAnswer(content: string | null, check: JsonCheck): AnswerCheck {
  if (content === null || content.trim() === '') return refused(['the answer is empty']);
  const text = stripJsonFence(content);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused(['the answer is not valid JSON']);
  }
  if (check.type === 'json_object') {
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    return isObject ? { ok: true, content: text } : refused(['the answer is not a JSON object']);
  }
  const errors = check.check(value);
  return errors.length === 0 ? { ok: true, content: text } : refused(errors);
}
