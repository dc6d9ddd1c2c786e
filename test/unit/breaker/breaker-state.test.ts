import { describe, expect, it } from 'vitest';
import {
  type BreakerPolicy,
  bucketStart,
  bucketWidth,
  DEFAULT_BREAKER_POLICY,
} from '../../../lambda/core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  applyOpening,
  applySample,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
  isCooling,
  isOpen,
  openingReason,
  windowCounts,
} from '../../../lambda/core/breaker/breaker-state.js';

const policy: BreakerPolicy = DEFAULT_BREAKER_POLICY;
const T0 = 1_700_000_000_000;

/** Applies samples in order; returns the final state and the first opening reason seen. */
function play(samples: AttemptSample[], start: BreakerSnapshot = EMPTY_SNAPSHOT) {
  let state = start;
  let opened: string | undefined;
  for (const sample of samples) {
    state = applySample(state, sample, policy);
    const reason = openingReason(state, sample, policy, sample.at);
    if (reason && !opened) {
      opened = reason;
      state = applyOpening(state, sample.at, reason, policy);
    }
  }
  return { state, opened };
}

const at = (offset: number, outcome: AttemptSample['outcome'], retryAfterMs?: number): AttemptSample => ({
  at: T0 + offset,
  outcome,
  retryAfterMs,
});

describe('breaker state', () => {
  it('opens after two consecutive 429s', () => {
    expect(play([at(0, 'rate_limited'), at(1, 'rate_limited')]).opened).toBe('consecutive_429');
  });

  it('does not open when a success comes between two 429s', () => {
    const { opened, state } = play([at(0, 'rate_limited'), at(1, 'ok'), at(2, 'rate_limited')]);
    expect(opened).toBeUndefined();
    expect(state.consecutive429).toBe(1);
  });

  it('opens with 5 samples of which 2 failed (40 % ≥ 30 %)', () => {
    const { opened } = play([at(0, 'ok'), at(1, 'ok'), at(2, 'ok'), at(3, 'unavailable'), at(4, 'timeout')]);
    expect(opened).toBe('failure_rate');
  });

  it('does not open with 4 samples of which 2 failed (below minSamples)', () => {
    const { opened } = play([at(0, 'ok'), at(1, 'ok'), at(2, 'unavailable'), at(3, 'network')]);
    expect(opened).toBeUndefined();
  });

  it('does not count samples older than the window', () => {
    const old = [at(0, 'unavailable'), at(1, 'unavailable'), at(2, 'ok')];
    const later = policy.windowMs + bucketWidth(policy);
    const { opened, state } = play([...old, at(later, 'ok'), at(later + 1, 'unavailable')]);
    expect(opened).toBeUndefined();
    expect(windowCounts(state, T0 + later + 1, policy)).toEqual({ attempts: 2, failures: 1 });
  });

  it('never counts a sample for longer than the window', () => {
    const state = applySample(EMPTY_SNAPSHOT, at(30_000, 'unavailable'), policy);
    expect(windowCounts(state, T0 + 30_000 + policy.windowMs, policy).attempts).toBe(0);
    expect(windowCounts(state, T0 + 30_000, policy).attempts).toBe(1);
  });

  it('closes again after openMs (no half-open state)', () => {
    const { state } = play([at(0, 'rate_limited'), at(1, 'rate_limited')]);
    expect(isOpen(state, T0 + 1 + policy.openMs - 1)).toBe(true);
    expect(isOpen(state, T0 + 1 + policy.openMs)).toBe(false);
  });

  it('starts the 429 streak over when it opens', () => {
    const { state } = play([at(0, 'rate_limited'), at(1, 'rate_limited')]);
    expect(state.consecutive429).toBe(0);
  });

  it.each(['upstream_auth', 'model_not_found'] as const)('opens at once on %s', (outcome) => {
    expect(play([at(0, outcome)]).opened).toBe(outcome);
  });

  it.each(['invalid_request', 'context_length', 'content_policy', 'cancelled', 'not_configured'] as const)(
    'ignores %s entirely',
    (outcome) => {
      const { state, opened } = play([at(0, 'rate_limited'), at(1, outcome), at(2, outcome), at(3, outcome)]);
      expect(opened).toBeUndefined();
      expect(windowCounts(state, T0 + 3, policy)).toEqual({ attempts: 1, failures: 1 });
      expect(state.consecutive429).toBe(1);
    },
  );

  it('does not report a second opening while already open', () => {
    const { state } = play([at(0, 'rate_limited'), at(1, 'rate_limited')]);
    const after = applySample(state, at(2, 'rate_limited'), policy);
    expect(openingReason(after, at(2, 'rate_limited'), policy, T0 + 2)).toBeUndefined();
  });

  it('cools a model for Retry-After, capped at openMs', () => {
    const cooled = applySample(EMPTY_SNAPSHOT, at(0, 'rate_limited', 2_000), policy);
    expect(isCooling(cooled, T0 + 1_999)).toBe(true);
    expect(isCooling(cooled, T0 + 2_000)).toBe(false);
    const capped = applySample(EMPTY_SNAPSHOT, at(0, 'rate_limited', 10 * policy.openMs), policy);
    expect(capped.coolUntil).toBe(T0 + policy.openMs);
  });

  it('keeps at most one window of buckets', () => {
    let state: BreakerSnapshot = EMPTY_SNAPSHOT;
    for (let minute = 0; minute < 60; minute++) state = applySample(state, at(minute * 60_000, 'ok'), policy);
    expect(Object.keys(state.buckets).length).toBeLessThanOrEqual(15);
  });

  it('opens on a failure rate of exactly 30 % (3 of 10)', () => {
    const oks = Array.from({ length: 7 }, (_, i) => at(i, 'ok'));
    const { opened } = play([...oks, at(7, 'unavailable'), at(8, 'timeout'), at(9, 'network')]);
    expect(opened).toBe('failure_rate');
  });

  it('does not open on a failure rate just below 30 % (2 of 7)', () => {
    const oks = Array.from({ length: 5 }, (_, i) => at(i, 'ok'));
    const { opened, state } = play([...oks, at(5, 'unavailable'), at(6, 'timeout')]);
    expect(opened).toBeUndefined();
    expect(windowCounts(state, T0 + 6, policy)).toEqual({ attempts: 7, failures: 2 });
  });

  it('never opens on a success, even when the window is already above the failure rate', () => {
    const { state } = play([at(0, 'unavailable'), at(1, 'timeout'), at(2, 'ok'), at(3, 'ok')]);
    const after = applySample(state, at(4, 'ok'), policy);
    expect(windowCounts(after, T0 + 4, policy)).toEqual({ attempts: 5, failures: 2 });
    expect(openingReason(after, at(4, 'ok'), policy, T0 + 4)).toBeUndefined();
  });

  it('keeps the 429 streak through other failures; only a success ends it', () => {
    expect(play([at(0, 'rate_limited'), at(1, 'unavailable'), at(2, 'rate_limited')]).opened).toBe(
      'consecutive_429',
    );
  });

  it('stops counting a sample exactly one window after the start of its bucket', () => {
    const start = bucketStart(T0, policy);
    const state = applySample(EMPTY_SNAPSHOT, { at: start, outcome: 'unavailable' }, policy);
    expect(windowCounts(state, start, policy)).toEqual({ attempts: 1, failures: 1 });
    expect(windowCounts(state, start + policy.windowMs - 1, policy).attempts).toBe(1);
    expect(windowCounts(state, start + policy.windowMs, policy).attempts).toBe(0);
  });

  it('ignores buckets that start after now (a container whose clock runs ahead wrote them)', () => {
    const state = applySample(EMPTY_SNAPSHOT, at(5 * bucketWidth(policy), 'unavailable'), policy);
    expect(windowCounts(state, T0, policy)).toEqual({ attempts: 0, failures: 0 });
  });

  it('keeps at most 15 buckets when samples fall exactly on bucket starts', () => {
    const width = bucketWidth(policy);
    const start = bucketStart(T0, policy);
    let state: BreakerSnapshot = EMPTY_SNAPSHOT;
    for (let i = 0; i < 20; i++) state = applySample(state, { at: start + i * width, outcome: 'ok' }, policy);
    expect(Object.keys(state.buckets)).toHaveLength(15);
    expect(Number(Object.keys(state.buckets).sort()[0])).toBe(start + 5 * width);
  });

  it('does not cool on a Retry-After of 0', () => {
    const state = applySample(EMPTY_SNAPSHOT, at(0, 'rate_limited', 0), policy);
    expect(state.coolUntil).toBeUndefined();
  });

  it('keeps an earlier cooling when a later 429 has no Retry-After or a shorter one', () => {
    const cooled = applySample(EMPTY_SNAPSHOT, at(0, 'rate_limited', 5_000), policy);
    const bare = applySample(cooled, at(1, 'rate_limited'), policy);
    expect(isCooling(bare, T0 + 4_999)).toBe(true);
    const shorter = applySample(cooled, at(2, 'rate_limited', 1_000), policy);
    expect(shorter.coolUntil).toBe(T0 + 5_000);
  });

  it('records when and why it opened', () => {
    const opened = applyOpening(EMPTY_SNAPSHOT, T0, 'failure_rate', policy);
    expect(opened).toMatchObject({ openedAt: T0, openUntil: T0 + policy.openMs, openReason: 'failure_rate' });
  });
});
