import { ServiceUnavailableException, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { extractRetryAfterMs, parseRetryAfter } from '../../../lambda/core/failures/retry-after.js';

const NOW = Date.parse('2025-03-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string | null | undefined, number | undefined]>([
    ['2', 2000],
    ['0', 0],
    [' 30 ', 30_000],
    ['1.5', 1500],
    ['0.001', 1],
    ['Sat, 01 Mar 2025 12:00:05 GMT', 5000],
    ['Saturday, 01-Mar-25 12:01:00 GMT', 60_000],
    ['Sat Mar  1 12:00:10 2025', 10_000],
    ['Sat, 01 Mar 2025 11:59:00 GMT', 0],
  ])('reads %j as %j ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each<[string | null | undefined]>([
    [null],
    [undefined],
    [''],
    ['   '],
    ['-1'],
    ['soon'],
    ['soon 12'],
    ['1e3'],
    ['2s'],
    ['0x10'],
    ['2025-03-01T12:00:05Z'],
    ['Sat, 01 Mar 2025 25:99:00 GMT'],
    ['9'.repeat(400)],
  ])('ignores %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('extractRetryAfterMs', () => {
  const rateLimit = (headers: Record<string, string>) =>
    new OpenAI.RateLimitError(429, { message: 'Rate limit reached' }, undefined, new Headers(headers));

  it('reads retry-after from an OpenAI RateLimitError', () => {
    expect(extractRetryAfterMs(rateLimit({ 'retry-after': '2' }), NOW)).toBe(2000);
  });

  it('prefers retry-after-ms over retry-after', () => {
    expect(extractRetryAfterMs(rateLimit({ 'retry-after': '2', 'retry-after-ms': '1234' }), NOW)).toBe(1234);
  });

  it('falls back to retry-after when retry-after-ms is garbage', () => {
    expect(extractRetryAfterMs(rateLimit({ 'retry-after': '3', 'retry-after-ms': 'soon' }), NOW)).toBe(3000);
  });

  it('reads an HTTP-date retry-after against the given clock', () => {
    expect(extractRetryAfterMs(rateLimit({ 'Retry-After': 'Sat, 01 Mar 2025 12:00:07 GMT' }), NOW)).toBe(
      7000,
    );
  });

  it('reads a Bedrock exception $response header in any case', () => {
    const error = Object.assign(
      new ThrottlingException({ message: 'Too many requests', $metadata: { httpStatusCode: 429 } }),
      { $response: { statusCode: 429, headers: { 'Retry-After': '4' }, body: undefined } },
    );
    expect(extractRetryAfterMs(error, NOW)).toBe(4000);
  });

  it('reads Node IncomingHttpHeaders arrays and numbers', () => {
    expect(extractRetryAfterMs({ headers: { 'retry-after': ['5', '9'] } }, NOW)).toBe(5000);
    expect(extractRetryAfterMs({ headers: { 'retry-after': 6 } }, NOW)).toBe(6000);
  });

  it('reads response.headers of a fetch-style wrapper', () => {
    const response = new Response(null, { status: 503, headers: { 'Retry-After': '8' } });
    expect(extractRetryAfterMs(Object.assign(new Error('HTTP 503'), { response }), NOW)).toBe(8000);
  });

  it('finds the hint on an error nested in cause', () => {
    const error = new Error('attempt failed', { cause: rateLimit({ 'retry-after': '1' }) });
    expect(extractRetryAfterMs(error, NOW)).toBe(1000);
  });

  it.each<[string, unknown]>([
    ['an OpenAI error without the header', rateLimit({ 'x-request-id': 'req_1' })],
    ['an APIConnectionTimeoutError (no headers)', new OpenAI.APIConnectionTimeoutError()],
    [
      'a Bedrock exception without $response',
      new ServiceUnavailableException({ message: 'unavailable', $metadata: { httpStatusCode: 503 } }),
    ],
    ['an unparseable header', rateLimit({ 'retry-after': 'later please' })],
    ['a string', 'retry-after: 2'],
    ['null', null],
  ])('finds no hint in %s', (_label, error) => {
    expect(extractRetryAfterMs(error, NOW)).toBeUndefined();
  });
});
