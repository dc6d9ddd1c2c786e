import { describe, expect, it } from 'vitest';
import {
  FAILURE_CLASSES,
  FAILURE_POLICY,
  type FailureClass,
} from '../../../lambda/core/failures/failure-class.js';

/** The failure matrix (docs/design.md#the-failure-matrix), written out again by hand: next attempt, breaker, alert, and whose fault. */
const MATRIX: ReadonlyArray<[FailureClass, boolean, boolean, boolean, boolean]> = [
  // class               fallback  counts  opensAtOnce  local
  ['rate_limited', true, true, false, false],
  ['unavailable', true, true, false, false],
  ['timeout', true, true, false, false],
  ['network', true, true, false, false],
  ['upstream_auth', true, true, true, false],
  ['model_not_found', true, true, true, false],
  ['malformed_response', true, true, false, false],
  // the caller writes the schema: a refused answer never moves a shared breaker
  ['schema_invalid', true, false, false, false],
  ['invalid_request', false, false, false, false],
  ['context_length', false, false, false, false],
  ['content_policy', false, false, false, false],
  ['cancelled', false, false, false, false],
  ['not_configured', true, false, false, true],
];

describe('failure matrix', () => {
  it.each(MATRIX)('%s: fallback %s, counts in breaker %s, opens at once %s, local %s', (cls, ...row) => {
    const [fallback, countsInBreaker, opensAtOnce, local] = row;
    expect(FAILURE_POLICY[cls]).toEqual({ fallback, countsInBreaker, opensAtOnce, local });
  });

  it('has a row for every failure class and no other', () => {
    expect(MATRIX.map(([cls]) => cls).sort()).toEqual([...FAILURE_CLASSES].sort());
    expect(Object.keys(FAILURE_POLICY).sort()).toEqual([...FAILURE_CLASSES].sort());
  });

  it('never lets a local failure count in a breaker or open one', () => {
    for (const cls of FAILURE_CLASSES.filter((c) => FAILURE_POLICY[c].local)) {
      expect(FAILURE_POLICY[cls]).toMatchObject({ countsInBreaker: false, opensAtOnce: false });
    }
  });
});
