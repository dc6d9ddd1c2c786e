/**
 * How deeply a JSON document nests objects and arrays. A caller can send a small body nested
 * thousands of levels deep (`{"a":{"a":…}}`, 5 bytes a level); every recursive step of the
 * runtime that later touches it (`JSON.stringify`, `structuredClone`, a schema compiler, an SDK's
 * serialiser) may then overflow the stack. The edge refuses such a body before anything parses it
 * (`limits.maxJsonDepth`, docs/security.md#request-bounds); adapters use the value walk below to
 * name where a body they could not serialise is deepest.
 *
 * Depth counts containers: the outermost value is level 1, `{"a":[1]}` is 2 levels deep, a bare
 * scalar is 0. Both functions are iterative: they cannot overflow the stack themselves.
 */

import { formatPath } from '../catalog/parse-config.js';

/** A path into a JSON value: object keys and array indexes, outermost first. */
export type JsonPath = Array<string | number>;

/** Segments of a path an error shows: enough to name the field (`tools[0].function.parameters.a.a.a.a…`). */
const SHOWN_SEGMENTS = 8;

/**
 * A path as an error names it: its first 8 segments, each key cut to `maxKeyChars` (the keys are
 * the caller's, `limits.maxEchoChars`), then `…` when the path goes on.
 */
export function shownPath(path: JsonPath, maxKeyChars: number): string {
  const shown = path
    .slice(0, SHOWN_SEGMENTS)
    .map((part) =>
      typeof part === 'string' && part.length > maxKeyChars ? `${part.slice(0, maxKeyChars)}…` : part,
    );
  return `${formatPath(shown)}${path.length > SHOWN_SEGMENTS ? '…' : ''}`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const CASE_BIT = 0x20;

/** The index of the quote that closes the string opening at `start`, or -1 when it never closes. */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    // An even run of backslashes escapes itself, not the quote.
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * The path to the first object or array of `text` nested deeper than `maxDepth` levels, or
 * undefined when the text stays within them. One pass over the text, before (and instead of)
 * parsing it, so an over-deep body costs no parse: the fast loop counts brackets outside strings
 * (skipped with `indexOf`), and only a refused body is scanned again to name the path.
 *
 * Exact for valid JSON. Malformed text is not this function's to report: whatever it answers,
 * `JSON.parse` still refuses the text afterwards.
 */
export function findJsonTooDeep(text: string, maxDepth: number): JsonPath | undefined {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return undefined;
      continue;
    }
    // `[` and `{` differ in one bit (0x20), as do `]` and `}`: one comparison each, per character.
    const folded = c | CASE_BIT;
    if (folded === OPEN_OBJECT) {
      if (++depth > maxDepth) return pathAt(text, i);
    } else if (folded === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

/** One open container while {@link pathAt} scans: its kind, and where in it the scan is. */
interface OpenContainer {
  object: boolean;
  /** Array: index of the current element. */
  index: number;
  /** Object: the raw key literal (with quotes) of the current member, or undefined before the first. */
  key: string | undefined;
  /** Object: the next string is a key (after `{` or `,`). */
  expectsKey: boolean;
}

/** The path of the container that opens at `end` (the slow path: only for a refused body). */
function pathAt(text: string, end: number): JsonPath {
  const open: OpenContainer[] = [];
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const top = open[open.length - 1];
    if (c === QUOTE) {
      const close = stringEnd(text, i);
      if (top?.object && top.expectsKey) {
        top.key = text.slice(i, close + 1);
        top.expectsKey = false;
      }
      i = close;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      open.push({ object: c === OPEN_OBJECT, index: 0, key: undefined, expectsKey: c === OPEN_OBJECT });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    } else if (c === COMMA && top) {
      if (top.object) top.expectsKey = true;
      else top.index++;
    }
  }
  return open.map((container) => (container.object ? keyOf(container.key) : container.index));
}

/** A key literal as the parser would read it (escapes undone). */
function keyOf(literal: string | undefined): string {
  if (literal === undefined) return '';
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** Children of a container, as (key, value) pairs in order. */
function childrenOf(container: object): Array<[string | number, unknown]> {
  return Array.isArray(container)
    ? container.map((child, index): [number, unknown] => [index, child])
    : Object.entries(container);
}

/**
 * Walks `value` with an explicit stack (one frame per open container) and stops at the first
 * container `stopAt` levels deep, answering its path; without one, answers the depth reached.
 */
function walk(value: object, stopAt: number): { depth: number; path: JsonPath | undefined } {
  const frames: Array<{ children: Array<[string | number, unknown]>; next: number }> = [
    { children: childrenOf(value), next: 0 },
  ];
  const path: JsonPath = [];
  let depth = 1;
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as (typeof frames)[number];
    const child = frame.children[frame.next++];
    if (child === undefined) {
      frames.pop();
      path.pop();
      continue;
    }
    if (!isContainer(child[1])) continue;
    path.push(child[0]);
    frames.push({ children: childrenOf(child[1]), next: 0 });
    if (frames.length >= stopAt) return { depth: frames.length, path };
    depth = Math.max(depth, frames.length);
  }
  return { depth, path: undefined };
}

/**
 * The depth of an already-built value, and the path of its first container at that depth: two
 * walks (the depth, then the path to it), for messages about a value that failed. Off the hot
 * path: it lists each container's children.
 */
export function deepestPath(value: unknown): { depth: number; path: JsonPath } {
  if (!isContainer(value)) return { depth: 0, path: [] };
  const { depth } = walk(value, Number.POSITIVE_INFINITY);
  return { depth, path: walk(value, depth).path ?? [] };
}
