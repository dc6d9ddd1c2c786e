import { describe, expect, it } from 'vitest';
import {
  cachedOverrideReader,
  describeOverride,
  overrideAt,
  readOverride,
  timedInForce,
  writeOverride,
} from '../../../lambda/core/catalog/chain-override.js';

const UNTIL = '2026-12-01T20:00:00.000Z';
const UNTIL_MS = Date.parse(UNTIL);

describe('an override value', () => {
  it('reads a plain chain as a steady override, as it always was', () => {
    expect(readOverride(' llama-or,gpt-mini ')).toEqual({
      ok: true,
      document: { chain: 'llama-or,gpt-mini' },
    });
  });

  it('reads the JSON document with a timed override, defaulting pin to false', () => {
    const reading = readOverride(JSON.stringify({ chain: 'a', timed: { chain: 'b', until: UNTIL } }));
    expect(reading).toEqual({
      ok: true,
      document: { chain: 'a', timed: { chain: 'b', until: UNTIL, pin: false } },
    });
  });

  it.each([
    ['{not json', 'the override starts with { but is not JSON'],
    [JSON.stringify({ timed: { chain: 'b', until: 'tomorrow' } }), 'override field timed.until'],
    [JSON.stringify({ canary: { chain: 'b', percent: 100, since: UNTIL } }), 'override field canary.percent'],
    [JSON.stringify({ canary: { chain: 'b', percent: 0, since: UNTIL } }), 'override field canary.percent'],
    [JSON.stringify({ chain: 'a', extra: 1 }), 'override field (document)'],
  ])('names the problem of %s', (raw, problem) => {
    const reading = readOverride(raw);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.problem).toContain(problem);
  });
});

describe('a timed override in force', () => {
  const document = { chain: 'a', timed: { chain: 'b', until: UNTIL, pin: true } };

  it('applies its chain, pinned, until the last millisecond before its end', () => {
    expect(overrideAt(document, UNTIL_MS - 1)).toEqual({ chain: 'b', until: UNTIL_MS, pinned: true });
    expect(timedInForce(document, UNTIL_MS - 1)).toBe(true);
  });

  it('returns to the steady chain exactly at its end', () => {
    expect(overrideAt(document, UNTIL_MS)).toEqual({ chain: 'a', pinned: false, canary: undefined });
    expect(timedInForce(document, UNTIL_MS)).toBe(false);
  });

  it('leaves no chain of its own after its end when there was none before it', () => {
    expect(overrideAt({ timed: document.timed }, UNTIL_MS).chain).toBeUndefined();
  });

  it('hides a canary while it is in force', () => {
    const both = { ...document, canary: { chain: 'c', percent: 10, since: UNTIL, autoAbort: false } };
    expect(overrideAt(both, UNTIL_MS - 1).canary).toBeUndefined();
    expect(overrideAt(both, UNTIL_MS).canary?.chain).toBe('c');
  });
});

describe('writing an override', () => {
  it('writes a steady chain alone as the plain chain, and nothing as undefined', () => {
    expect(writeOverride({ chain: 'a' })).toBe('a');
    expect(writeOverride({})).toBeUndefined();
  });

  it('writes a timed override or a canary as JSON that reads back the same', () => {
    const document = { timed: { chain: 'b', until: UNTIL, pin: false } };
    const value = writeOverride(document) as string;
    expect(value.startsWith('{')).toBe(true);
    expect(readOverride(value)).toEqual({ ok: true, document });
  });

  it('describes each kind in one line', () => {
    expect(describeOverride({ chain: 'a' })).toBe('a');
    expect(describeOverride({ chain: 'a', timed: { chain: 'b', until: UNTIL, pin: true } })).toBe(
      `pin b until ${UNTIL}; then a`,
    );
    expect(describeOverride({ canary: { chain: 'c', percent: 10, since: UNTIL, autoAbort: false } })).toBe(
      'canary 10 % c; stable (the config chain)',
    );
  });
});

describe('reading override values on the request path', () => {
  const timed = JSON.stringify({ chain: 'a', timed: { chain: 'b', until: UNTIL } });

  it('reads each distinct value once: the same value gives the same reading, equal to a fresh read', () => {
    const read = cachedOverrideReader();
    const first = read(timed);
    expect(first).toEqual(readOverride(timed));
    expect(read(timed)).toBe(first);
    expect(read('a,b')).toEqual({ ok: true, document: { chain: 'a,b' } });
  });

  it('keeps a value that cannot be read as unreadable every time it is asked', () => {
    const read = cachedOverrideReader();
    const broken = '{"chain": "a", "timed": {"chain": "b"}}';
    expect(read(broken).ok).toBe(false);
    expect(read(broken)).toEqual(readOverride(broken));
  });

  it('forgets the oldest value past the number it keeps, and reads it afresh when it comes back', () => {
    const read = cachedOverrideReader(2);
    const a = read('{"chain":"a"}');
    read('{"chain":"b"}');
    expect(read('{"chain":"a"}')).toBe(a);
    read('{"chain":"c"}');
    const again = read('{"chain":"a"}');
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
    expect(read('{"chain":"a"}')).toBe(again);
    const b = read('{"chain":"b"}');
    expect(b).toEqual({ ok: true, document: { chain: 'b' } });
  });
});
