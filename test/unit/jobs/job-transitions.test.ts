import { describe, expect, it } from 'vitest';
import type { JobRecord, JobRun } from '../../../lambda/core/jobs/job.js';
import {
  claimTransition,
  deliveredTransition,
  enqueuedTransition,
  failTransition,
  succeedTransition,
} from '../../../lambda/core/jobs/job-transitions.js';

const T0 = 1_000_000;
const RUN: JobRun = { at: T0, reason: 'exhausted', attempts: 1, route: 'a:429' };
const ANSWER = { model: 'a', content: 'ok', finishReason: 'stop' as const };

const record = (overrides: Partial<JobRecord> = {}): JobRecord => ({
  jobId: 'j',
  pipeline: 'p',
  request: { messages: [{ role: 'user', content: 'x' }] },
  status: 'queued',
  createdAt: T0,
  updatedAt: T0,
  runs: [],
  expiresAt: T0 / 1000 + 60,
  ...overrides,
});

describe('job transitions', () => {
  it.each([
    ['queued', undefined, T0, 'claimed'],
    ['retrying', undefined, T0, 'claimed'],
    ['running', T0 + 1, T0, 'busy'],
    ['running', T0, T0, 'busy'],
    ['running', T0 - 1, T0, 'claimed'],
    ['running', undefined, T0, 'claimed'],
    ['succeeded', undefined, T0, 'finished'],
    ['failed', undefined, T0, 'finished'],
  ] as const)('claims a %s job whose lease ends at %s at time %s: %s', (status, leaseUntil, now, kind) => {
    const { result, write } = claimTransition(record({ status, leaseUntil }), now, 500);
    expect(result.kind).toBe(kind);
    expect(write === undefined).toBe(kind !== 'claimed');
    if (write) expect(write).toMatchObject({ status: 'running', leaseUntil: now + 500, updatedAt: now });
  });

  it('hands the POST reservation to the claiming run and writes the record without it', () => {
    const reservation = {
      holds: [],
      reserved: { tokens: 20, costNano: 100 },
    } as unknown as JobRecord['reservation'];
    const { result, write } = claimTransition(record({ reservation }), T0, 500);
    expect(result.kind === 'claimed' && result.record.reservation).toEqual(reservation);
    expect(write).toBeDefined();
    expect(write && 'reservation' in write).toBe(false);
    expect(write).toMatchObject({ status: 'running', leaseUntil: T0 + 500 });
  });

  it('answers missing, and writes nothing, for no record', () => {
    expect(claimTransition(undefined, T0, 500)).toEqual({ result: { kind: 'missing' } });
  });

  it('succeeds only a running job, dropping its lease and an earlier error, keeping its runs', () => {
    const running = record({
      status: 'running',
      leaseUntil: T0 + 9,
      error: { code: 'x', message: 'y' },
      runs: [RUN],
    });
    const done = succeedTransition(running, ANSWER, { ...RUN, reason: 'success' }, T0 + 5);
    expect(done).toMatchObject({ status: 'succeeded', result: ANSWER, updatedAt: T0 + 5 });
    expect(done?.runs.map((r) => r.reason)).toEqual(['exhausted', 'success']);
    expect(done && 'leaseUntil' in done).toBe(false);
    expect(done && 'error' in done).toBe(false);
    expect(succeedTransition(record(), ANSWER, RUN, T0)).toBeUndefined();
  });

  it('fails a running job terminally with the error, or back to retrying keeping an earlier error', () => {
    const running = record({
      status: 'running',
      leaseUntil: T0 + 9,
      error: { code: 'old', message: 'before' },
    });
    expect(failTransition(running, RUN, T0, { code: 'invalid_request', message: 'bad' })).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_request', message: 'bad' },
    });
    const retrying = failTransition(running, RUN, T0, undefined);
    expect(retrying).toMatchObject({ status: 'retrying', error: { code: 'old' }, runs: [RUN] });
    expect(retrying && 'leaseUntil' in retrying).toBe(false);
    expect(failTransition(record({ status: 'succeeded' }), RUN, T0, undefined)).toBeUndefined();
  });

  it('records a delivery once, and none for a job without a target', () => {
    const owed = record({ deliver: { url: 'http://127.0.0.1:9/hook' } });
    const delivered = deliveredTransition(owed, T0 + 1);
    expect(delivered?.deliver?.deliveredAt).toBe(T0 + 1);
    expect(deliveredTransition(delivered, T0 + 2)).toBeUndefined();
    expect(deliveredTransition(record(), T0)).toBeUndefined();
  });

  it('marks an existing job enqueued and leaves a missing one missing', () => {
    expect(enqueuedTransition(record(), T0 + 3)).toMatchObject({ enqueuedAt: T0 + 3, updatedAt: T0 + 3 });
    expect(enqueuedTransition(undefined, T0)).toBeUndefined();
  });
});
