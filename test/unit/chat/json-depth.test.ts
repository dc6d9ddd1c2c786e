import { describe, expect, it } from 'vitest';
import { deepestPath, findJsonTooDeep, shownPath } from '../../../lambda/core/chat/json-depth.js';

/** `{"a":{"a":…1…}}`: `levels` objects, one inside the other. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** `[[…[1]…]]`: `levels` arrays. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('findJsonTooDeep', () => {
  it.each([
    ['objects', nestedObjects],
    ['arrays', nestedArrays],
  ])('takes %s nested exactly maxDepth levels and refuses one level more', (_kind, nested) => {
    expect(findJsonTooDeep(nested(64), 64)).toBeUndefined();
    expect(findJsonTooDeep(nested(65), 64)).toBeDefined();
  });

  it('counts the body itself as level 1, and a bare scalar as none', () => {
    expect(findJsonTooDeep('{}', 1)).toBeUndefined();
    expect(findJsonTooDeep('{"a":{}}', 1)).toEqual(['a']);
    expect(findJsonTooDeep('"{{{{"', 1)).toBeUndefined();
    expect(findJsonTooDeep('42', 1)).toBeUndefined();
  });

  it('names the path to the first container past the limit, keys and indexes alike', () => {
    const body = `{"model":"p","tools":[{"type":"function","function":{"name":"f","parameters":${nestedObjects(10)}}}]}`;
    expect(findJsonTooDeep(body, 6)).toEqual(['tools', 0, 'function', 'parameters', 'a', 'a']);
    expect(findJsonTooDeep('[1,[2],[3,[4,{"k":[[5]]}]]]', 5)).toEqual([2, 1, 1, 'k', 0]);
  });

  it('reads keys as the parser does, escapes undone, and skips brackets inside strings', () => {
    const body = String.raw`{"x":"[[[[\"{{{{\\","a\"b":{"\u0063":[[1]]}}`;
    expect(JSON.parse(body)).toBeTruthy();
    expect(findJsonTooDeep(body, 4)).toBeUndefined();
    expect(findJsonTooDeep(body, 3)).toEqual(['a"b', 'c', 0]);
  });

  it('passes siblings that each stay within the limit, however many', () => {
    const wide = `[${Array.from({ length: 1_000 }, () => nestedArrays(7)).join(',')}]`;
    expect(findJsonTooDeep(wide, 8)).toBeUndefined();
    expect(findJsonTooDeep(wide, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('stops at the limit in a body far deeper than the stack could walk', () => {
    expect(findJsonTooDeep(nestedArrays(500_000), 64)).toHaveLength(64);
  });

  it('pops a closed object as it pops a closed array when it names the path', () => {
    expect(findJsonTooDeep('[{"a":1},[[1]]]', 2)).toEqual([1, 0]);
  });

  it('stops counting at a string that never closes, rather than counting brackets before it twice', () => {
    expect(findJsonTooDeep('[[["never closed', 3)).toBeUndefined();
  });

  it('names a path in malformed text without throwing', () => {
    // A string before the first container, an object whose key never came, a key JSON cannot read.
    expect(findJsonTooDeep('"x"[[1]]', 1)).toEqual([0]);
    expect(findJsonTooDeep('{[[1]]}', 2)).toEqual(['', 0]);
    expect(findJsonTooDeep('{"a\tb":[[1]]}', 2)).toEqual(['a\tb', 0]);
    expect(findJsonTooDeep(String.raw`{"a\x":[[1]]}`, 2)).toEqual([String.raw`a\x`, 0]);
  });

  it('leaves malformed text to the parser', () => {
    expect(findJsonTooDeep('{"a": "never closed', 1)).toBeUndefined();
    expect(findJsonTooDeep(']]]]{', 1)).toBeUndefined();
  });
});

describe('deepestPath', () => {
  it('finds the depth of a value and the path of its first container that deep', () => {
    expect(deepestPath(1)).toEqual({ depth: 0, path: [] });
    expect(deepestPath({ a: 1 })).toEqual({ depth: 1, path: [] });
    expect(deepestPath({ a: [1], b: { c: [[2]] }, d: { e: [[3]] } })).toEqual({
      depth: 4,
      path: ['b', 'c', 0],
    });
  });

  it('counts null as a leaf, not a container', () => {
    expect(deepestPath(null)).toEqual({ depth: 0, path: [] });
    expect(deepestPath({ a: null, b: [null], c: 1 })).toEqual({ depth: 2, path: ['b'] });
  });

  it('walks a value too deep for JSON.stringify without overflowing itself', () => {
    const value = JSON.parse(nestedObjects(20_000));
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    const { depth, path } = deepestPath(value);
    expect(depth).toBe(20_000);
    expect(path).toHaveLength(19_999);
  });
});

describe('shownPath', () => {
  it('shows the first eight segments, then an ellipsis when the path goes on', () => {
    const path = ['tools', 0, 'function', 'parameters', ...Array<string>(60).fill('a')];
    expect(shownPath(path, 128)).toBe('tools[0].function.parameters.a.a.a.a…');
    expect(shownPath(path.slice(0, 8), 128)).toBe('tools[0].function.parameters.a.a.a.a');
  });

  it("cuts each of the caller's keys to the echo limit", () => {
    expect(shownPath(['tools', 'k'.repeat(40)], 16)).toBe(`tools["${'k'.repeat(16)}…"]`);
    expect(shownPath(['tools', 'k'.repeat(16)], 16)).toBe(`tools.${'k'.repeat(16)}`);
  });
});
