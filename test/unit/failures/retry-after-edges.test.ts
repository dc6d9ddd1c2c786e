/**
 * The edges of reading a cooling hint: the largest delay kept, a host time zone that must not
 * leak into a zone-less date, padded millisecond headers, and header bags that are absent or throw.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { extractRetryAfterMs, parseRetryAfter } from '../../../lambda/core/failures/retry-after.js';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const withHeaders = (headers: unknown) => Object.assign(new Error('slow down'), { status: 429, headers });

describe('the largest delay', () => {
  it('keeps a retry-after-ms of exactly Number.MAX_SAFE_INTEGER and ignores one above it', () => {
    const max = String(Number.MAX_SAFE_INTEGER);
    expect(extractRetryAfterMs(withHeaders({ 'retry-after-ms': max }), NOW)).toBe(Number.MAX_SAFE_INTEGER);
    expect(extractRetryAfterMs(withHeaders({ 'retry-after-ms': '9007199254740993' }), NOW)).toBeUndefined();
  });
});

describe('a zone-less asctime date', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('is read as GMT whatever the host zone is', () => {
    process.env.TZ = 'America/New_York';
    expect(parseRetryAfter('Sat Mar  1 12:00:10 2025', NOW)).toBe(10_000);
  });
});

describe('header bags', () => {
  it('trims a padded retry-after-ms', () => {
    expect(extractRetryAfterMs(withHeaders({ 'retry-after-ms': ' 1234 ' }), NOW)).toBe(1234);
  });

  it('an error without headers has no hint', () => {
    expect(extractRetryAfterMs(new Error('no headers'), NOW)).toBeUndefined();
    expect(extractRetryAfterMs(withHeaders('retry-after: 5'), NOW)).toBeUndefined();
  });

  it('a headers object whose get throws has no hint, and nothing is thrown', () => {
    const headers = {
      get() {
        throw new Error('headers already consumed');
      },
    };
    expect(extractRetryAfterMs(withHeaders(headers), NOW)).toBeUndefined();
  });
});
