import { describe, expect, it } from 'vitest';
import { FAR_RESET_SECONDS, retryAdvice } from '../../../lambda/doors/shared/retry-advice.js';

const advice = (status: number, headers: Record<string, string> = {}) =>
  retryAdvice(status, new Headers(headers));

describe('retry advice', () => {
  it('keeps a 429 whose reset is exactly the SDKs’ longest wait retryable, with retry-after-ms', () => {
    expect(FAR_RESET_SECONDS).toBe(60);
    expect(advice(429, { 'retry-after': '60' })).toEqual({ 'retry-after-ms': '60000' });
    expect(advice(429, { 'retry-after': '1' })).toEqual({ 'retry-after-ms': '1000' });
  });

  it('tells the client not to retry a 429 whose reset is one second further off (a spend cap’s day)', () => {
    expect(advice(429, { 'retry-after': '61' })).toEqual({ 'x-should-retry': 'false' });
    expect(advice(429, { 'retry-after': '43200' })).toEqual({ 'x-should-retry': 'false' });
  });

  it('says nothing on a 429 without a whole-second Retry-After', () => {
    expect(advice(429)).toEqual({});
    expect(advice(429, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' })).toEqual({});
  });

  it('tells the client not to retry a refusal of its own making', () => {
    for (const status of [400, 401, 403, 404, 405, 413, 415, 422])
      expect(advice(status), String(status)).toEqual({ 'x-should-retry': 'false' });
  });

  it('leaves the statuses the SDKs retry by design, the 5xx and a caller gone away to their renderers', () => {
    for (const status of [408, 409, 499, 500, 502, 503, 504])
      expect(advice(status), String(status)).toEqual({});
  });

  it('keeps advice a door already gave', () => {
    expect(advice(400, { 'x-should-retry': 'true' })).toEqual({});
  });
});
