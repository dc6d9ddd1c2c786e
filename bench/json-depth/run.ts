/**
 * What the edge's nesting bound costs per request body (`limits.maxJsonDepth`,
 * docs/security.md#request-bounds): the one scan over the text before `JSON.parse`, next to the
 * parse itself, for bodies of the usual shapes, and for the body the bound exists for (a megabyte
 * of `[`, which the parser would walk in full). In process, no network; prints one table.
 *
 *   npx tsx bench/json-depth/run.ts
 */
import { findJsonTooDeep } from '../../lambda/core/chat/json-depth.js';

const LIMIT = 64;
const levels = 500_000;

const bodies: Array<[string, string, number]> = [
  [
    '2 KB chat body with a tool',
    JSON.stringify({
      model: 'p',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'x'.repeat(1_500) },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    }),
    20_000,
  ],
  [
    '1 MB of prompt text, quotes escaped',
    JSON.stringify({
      model: 'p',
      messages: Array.from({ length: 200 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: 'lorem ipsum "quoted" \\ text '.repeat(180),
      })),
    }),
    100,
  ],
  [
    '1 MB of embedding token ids',
    JSON.stringify({ model: 'e', input: Array.from({ length: 200_000 }, (_, i) => i % 50_000) }),
    100,
  ],
  [
    '1 MB of small content parts',
    JSON.stringify({
      model: 'p',
      messages: Array.from({ length: 20_000 }, () => ({
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
      })),
    }),
    100,
  ],
  [`1 MB of "[" and "]", ${levels} deep`, `${'['.repeat(levels)}${']'.repeat(levels)}`, 5],
];

/** Mean µs per call of `run`, after a warm-up. */
function micros(run: () => unknown, times: number): number {
  for (let i = 0; i < Math.min(times, 50); i++) run();
  const start = performance.now();
  for (let i = 0; i < times; i++) run();
  return ((performance.now() - start) / times) * 1_000;
}

const rows = bodies.map(([name, text, times]) => {
  const scan = micros(() => findJsonTooDeep(text, LIMIT), times);
  const parse = micros(() => JSON.parse(text), times);
  const refused = findJsonTooDeep(text, LIMIT) !== undefined;
  return {
    body: name,
    bytes: text.length,
    'scan µs': scan.toFixed(1),
    'JSON.parse µs': parse.toFixed(1),
    refused,
  };
});
console.table(rows);
