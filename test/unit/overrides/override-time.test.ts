import { describe, expect, it } from 'vitest';
import { canaryLines, variantFigures } from '../../../lambda/cli/canary-status.js';
import { overrideEnd, parseCanaryPercent, parseDuration } from '../../../lambda/overrides/override-time.js';

const NOW = Date.parse('2026-12-01T06:00:00Z');

describe('--for durations', () => {
  it.each([
    ['2h', 7_200_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['1d', 86_400_000],
    ['366d', 366 * 86_400_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['2 hours', '--for must be a duration such as 2h'],
    ['2', '--for must be a duration such as 2h'],
    ['-1h', '--for must be a duration such as 2h'],
    ['0h', '--for must be longer than zero'],
    ['367d', '--for may be at most 366d'],
  ])('refuses %s with a clear error', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });
});

describe('the end of a timed override', () => {
  it('counts --for from now and takes --until as given', () => {
    expect(overrideEnd({ for: '2h' }, NOW)).toBe(NOW + 7_200_000);
    expect(overrideEnd({ until: '2026-12-01T08:00:00+01:00' }, NOW)).toBe(NOW + 3_600_000);
    expect(overrideEnd({}, NOW)).toBeUndefined();
  });

  it.each([
    [{ for: '2h', until: '2026-12-01T08:00:00Z' }, 'give --for or --until, not both'],
    [{ until: '2026-12-01T08:00:00' }, '--until must be an ISO 8601 time with a zone'],
    [{ until: 'tomorrow' }, '--until must be an ISO 8601 time with a zone'],
    [{ until: '2026-12-01T06:00:00Z' }, '--until 2026-12-01T06:00:00Z is not in the future'],
    [{ until: '2028-12-01T06:00:00Z' }, '--until may be at most 366 days ahead'],
  ])('refuses %o', (flags, message) => {
    expect(() => overrideEnd(flags, NOW)).toThrow(message);
  });

  it('accepts --until one millisecond after now', () => {
    expect(overrideEnd({ until: '2026-12-01T06:00:00.001Z' }, NOW)).toBe(NOW + 1);
  });
});

describe('--canary shares', () => {
  it('takes a share between 0 and 100, exclusive', () => {
    expect(parseCanaryPercent('10')).toBe(10);
    expect(parseCanaryPercent('0.5')).toBe(0.5);
    expect(parseCanaryPercent('99.9')).toBe(99.9);
  });

  it.each(['0', '100', '-5', 'ten', '10%'])('refuses %s', (text) => {
    expect(() => parseCanaryPercent(text)).toThrow('--canary must be a share in % between 0 and 100');
  });
});

describe('chain status figures from the ledger', () => {
  const line = (fields: Record<string, unknown>) =>
    JSON.stringify({
      type: 'request',
      pipeline: 'p',
      attempts: 1,
      latencyMs: 10,
      reason: 'success',
      ...fields,
    });
  const text = [
    line({ variant: 'stable', time: '2026-12-01T06:00:01Z', latencyMs: 10 }),
    line({ variant: 'stable', time: '2026-12-01T06:00:02Z', latencyMs: 30, attempts: 2 }),
    line({
      variant: 'canary',
      time: '2026-12-01T06:00:03Z',
      reason: 'exhausted',
      attempts: 3,
      latencyMs: 50,
    }),
    line({ variant: 'canary', timestamp: '2026-12-01T06:00:04Z', latencyMs: 20 }),
    line({ variant: 'stable', time: '2026-12-01T05:59:59Z' }),
    line({ variant: 'stable', pipeline: 'other' }),
    line({}),
    JSON.stringify({ type: 'attempt', pipeline: 'p', variant: 'stable' }),
    'not json at all',
  ].join('\n');

  it('reads request lines of the pipeline with a variant since the canary started, tabs or newlines', () => {
    expect(canaryLines(text, 'p', NOW)).toHaveLength(4);
    expect(canaryLines(text.replaceAll('\n', '\t'), 'p', NOW)).toHaveLength(4);
  });

  it('works out success rate, attempts per request and latency per variant', () => {
    const lines = canaryLines(text, 'p', NOW);
    expect(variantFigures(lines, 'stable')).toEqual({
      requests: 2,
      successRate: 1,
      attemptsPerRequest: 1.5,
      p50Ms: 10,
      p95Ms: 30,
    });
    expect(variantFigures(lines, 'canary')).toMatchObject({
      requests: 2,
      successRate: 0.5,
      attemptsPerRequest: 2,
    });
  });
});
