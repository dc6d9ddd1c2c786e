import { describe, expect, it } from 'vitest';
import { clientRequestIdOf, newRequestId } from '../../../lambda/http/request-id.js';

describe('request ids', () => {
  it('makes a new req_ id of 32 hex digits for every request, never the same twice', () => {
    const ids = Array.from({ length: 100 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(100);
  });

  it.each([
    ['a short token', 'trace-42'],
    ['every allowed punctuation', 'a.b_c:d@e/f+g=h-i'],
    ['one character', 'x'],
    ['exactly 128 characters', 'a'.repeat(128)],
  ])("keeps a caller's x-request-id that is %s", (_name, value) => {
    expect(clientRequestIdOf(value)).toBe(value);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['129 characters', 'a'.repeat(129)],
    ['with a space', 'a b'],
    ['with a newline', 'a\nb'],
    ['with a quote', 'a"b'],
    ['with markup', '<b>'],
    ['with a percent escape', 'a%0Ab'],
    ['not ASCII', 'café'],
  ])("drops a caller's x-request-id that is %s", (_name, value) => {
    expect(clientRequestIdOf(value)).toBeUndefined();
  });
});
