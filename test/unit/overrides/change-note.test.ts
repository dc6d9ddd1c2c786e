import { describe, expect, it } from 'vitest';
import { readChangeNote, writeChangeNote } from '../../../lambda/overrides/change-note.js';

describe('change notes (who and why in a version description)', () => {
  it('reads back what, who and why', () => {
    const text = writeChangeNote('set pin b until 2026-12-01T20:00:00Z', {
      who: 'ops-alice',
      why: 'a is down: 503s',
    });
    expect(text).toBe(
      'set pin b until 2026-12-01T20:00:00Z by ops-alice (operator console): a is down: 503s',
    );
    expect(readChangeNote(text)).toEqual({
      what: 'set pin b until 2026-12-01T20:00:00Z',
      who: 'ops-alice',
      why: 'a is down: 503s',
    });
  });

  it('reads nothing from a description written elsewhere', () => {
    expect(readChangeNote('chain of p, set by switchyard chain set')).toBeUndefined();
    expect(readChangeNote(undefined)).toBeUndefined();
  });

  it('stays within the 1024 characters SSM allows', () => {
    expect(writeChangeNote('set b', { who: 'ops', why: 'x'.repeat(2_000) })).toHaveLength(1024);
  });
});
