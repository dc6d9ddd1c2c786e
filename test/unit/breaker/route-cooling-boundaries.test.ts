/**
 * The pure rules of account-route cooling at their edges (docs/concepts.md#account-route-cooling):
 * when a hint counts, which of two coolings wins, and how a route id splits back.
 */
import { describe, expect, it } from 'vitest';
import {
  accountRouteId,
  applyRateLimit,
  coolingEnd,
  laterCooling,
  NOT_COOLING,
  parseAccountRouteId,
} from '../../../lambda/core/breaker/route-cooling.js';

const POLICY = { coolMs: 5_000, maxMs: 60_000 };
const AT = 1_000_000;

describe('account route ids', () => {
  it('split back into provider and upstream model id', () => {
    expect(parseAccountRouteId(accountRouteId('official', 'gpt-4o-mini'))).toEqual({
      provider: 'official',
      model: 'gpt-4o-mini',
    });
  });

  it('an id without a model part is all provider', () => {
    expect(parseAccountRouteId('official')).toEqual({ provider: 'official', model: '' });
  });

  it('an empty provider still splits at the separator', () => {
    expect(parseAccountRouteId(accountRouteId('', 'm'))).toEqual({ provider: '', model: 'm' });
  });
});

describe('when a 429 stops cooling its route', () => {
  it('a Retry-After of 1 ms is a hint', () => {
    expect(coolingEnd({ at: AT, pipeline: 'p', retryAfterMs: 1 }, POLICY)).toBe(AT + 1);
  });

  it('a Retry-After of 0 ms, or none, cools for coolMs', () => {
    expect(coolingEnd({ at: AT, pipeline: 'p', retryAfterMs: 0 }, POLICY)).toBe(AT + 5_000);
    expect(coolingEnd({ at: AT, pipeline: 'p' }, POLICY)).toBe(AT + 5_000);
  });

  it('a hint longer than maxMs is cut to maxMs', () => {
    expect(coolingEnd({ at: AT, pipeline: 'p', retryAfterMs: 60_001 }, POLICY)).toBe(AT + 60_000);
  });
});

describe('one more 429 on a cooling route', () => {
  const cooling = { coolUntil: AT + 5_000, cooledAt: AT, cooledBy: 'first' };

  it('ending at the same time keeps the first cooling and who set it', () => {
    expect(applyRateLimit(cooling, { at: AT, pipeline: 'second' }, POLICY)).toBe(cooling);
  });

  it('ending 1 ms later replaces it', () => {
    expect(applyRateLimit(cooling, { at: AT + 1, pipeline: 'second' }, POLICY)).toEqual({
      coolUntil: AT + 5_001,
      cooledAt: AT + 1,
      cooledBy: 'second',
    });
  });

  it('a route that never cooled starts cooling', () => {
    expect(applyRateLimit(NOT_COOLING, { at: AT, pipeline: 'p' }, POLICY).coolUntil).toBe(AT + 5_000);
  });
});

describe('the later of two coolings', () => {
  const early = { coolUntil: AT, cooledBy: 'early' };
  const late = { coolUntil: AT + 1, cooledBy: 'late' };
  const same = { coolUntil: AT, cooledBy: 'same' };

  it('is the one that ends later, in either order', () => {
    expect(laterCooling(early, late)).toBe(late);
    expect(laterCooling(late, early)).toBe(late);
  });

  it('is the first of two that end together', () => {
    expect(laterCooling(early, same)).toBe(early);
  });

  it('is whichever exists, or not cooling', () => {
    expect(laterCooling(undefined, late)).toBe(late);
    expect(laterCooling(early, undefined)).toBe(early);
    expect(laterCooling(undefined, undefined)).toBe(NOT_COOLING);
  });

  it('counts a state without an end as ending at 0', () => {
    expect(laterCooling(NOT_COOLING, early)).toBe(early);
    expect(laterCooling(early, NOT_COOLING)).toBe(early);
  });
});
