import type { NameResolution, NameResolver } from '../../lambda/core/dsl/types.js';

/**
 * A catalog stand-in for DSL tests: keys a, b, c; `fast` is an alias of a; a raw Bedrock id of c;
 * two raw ids shared by b and c (ambiguous).
 */
export const FAKE_NAMES: Readonly<Record<string, NameResolution>> = {
  a: { kind: 'model', key: 'a' },
  b: { kind: 'model', key: 'b' },
  c: { kind: 'model', key: 'c' },
  fast: { kind: 'model', key: 'a' },
  'meta.llama3-3-70b-instruct-v1:0': { kind: 'model', key: 'c' },
  'meta-llama/llama-3.3-70b-instruct': { kind: 'ambiguous', candidates: ['b', 'c'] },
  'shared-id': { kind: 'ambiguous', candidates: ['b', 'c'] },
};

export const fakeResolver: NameResolver = {
  resolve: (name) =>
    Object.hasOwn(FAKE_NAMES, name) ? (FAKE_NAMES[name] as NameResolution) : { kind: 'unknown' },
};
