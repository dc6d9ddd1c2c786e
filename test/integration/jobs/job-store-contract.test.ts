/**
 * One contract for every job store: memory, SQLite and DynamoDB (dynalite) make the same
 * transitions under the same conditions, so the job lifecycle behaves the same on each backend.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobStore } from '../../../lambda/core/jobs/job-ports.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import {
  ANSWER,
  DAY_S,
  type JobStoreFixture,
  job,
  jobStoreFixtures,
  LEASE_MS,
  run,
  T0,
} from './job-store-contract-harness.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each(jobStoreFixtures(() => dynalite))('job store contract: $name', ({ open }) => {
  let fixture: JobStoreFixture;
  let store: JobStore;
  let clock: FakeClock;
  beforeEach(async () => {
    clock = createFakeClock(T0);
    fixture = await open(clock);
    store = fixture.store;
  });
  afterEach(() => fixture.close());

  describe('create and read', () => {
    it('creates a job once; the second create of the same id answers false and changes nothing', async () => {
      expect(await store.create(job('a'))).toBe(true);
      expect(await store.create(job('a', { pipeline: 'other' }))).toBe(false);
      const record = await store.get('a');
      expect(record).toMatchObject({ jobId: 'a', pipeline: 'digest', status: 'queued', runs: [] });
      expect(record?.request).toHaveProperty(['messages', 0], {
        role: 'user',
        content: 'Summarise the day.',
      });
    });

    it('answers undefined for an unknown id and marks an enqueued job with the time', async () => {
      expect(await store.get('nope')).toBeUndefined();
      await store.create(job('a'));
      await store.markEnqueued('a', T0 + 5);
      expect(await store.get('a')).toMatchObject({ enqueuedAt: T0 + 5, updatedAt: T0 + 5 });
    });

    it('does not turn markEnqueued of a missing job into a job', async () => {
      await store.markEnqueued('ghost', T0);
      expect(await store.get('ghost')).toBeUndefined();
      expect(await store.claim('ghost', T0, LEASE_MS)).toEqual({ kind: 'missing' });
    });

    it('ignores a job whose expiresAt has passed, and lets a new job take its id', async () => {
      await store.create(job('old', { expiresAt: T0 / 1000 + 60 }));
      clock.advance(59_999);
      expect(await store.get('old')).toBeDefined();
      clock.advance(1);
      expect(await store.get('old')).toBeUndefined();
      expect(await store.claim('old', clock.now(), LEASE_MS)).toEqual({ kind: 'missing' });
      expect(await store.markDelivered('old', clock.now())).toBe(false);
      const fresh = job('old', {
        createdAt: clock.now(),
        expiresAt: clock.now() / 1000 + DAY_S,
        pipeline: 'new',
      });
      expect(await store.create(fresh)).toBe(true);
      expect(await store.get('old')).toMatchObject({ pipeline: 'new', status: 'queued' });
    });

    it('finds a scheduled job by its linked public id only, until the link expires', async () => {
      const id = 'nightly:acct-1:2026-11-29T03:00:00Z';
      const publicId = 'job_0123456789abcdef0123456789abcdef';
      const expiresAt = Math.floor(T0 / 1000) + DAY_S;
      await store.create(job(id, { publicId, expiresAt }));
      expect(await store.getByPublicId(publicId)).toBeUndefined();
      await store.linkPublicId(publicId, id, expiresAt);
      await store.linkPublicId(publicId, id, expiresAt);
      expect((await store.getByPublicId(publicId))?.jobId).toBe(id);
      // The internal id is not a public id, and a link the record does not claim exposes nothing.
      expect(await store.getByPublicId(id)).toBeUndefined();
      await store.linkPublicId('job_ffffffffffffffffffffffffffffffff', id, expiresAt);
      expect(await store.getByPublicId('job_ffffffffffffffffffffffffffffffff')).toBeUndefined();
      clock.advance(DAY_S * 1000);
      expect(await store.getByPublicId(publicId)).toBeUndefined();
    });
  });

  describe('claim', () => {
    it('claims a queued job: running, with a lease of now + leaseMs', async () => {
      await store.create(job('a'));
      const claim = await store.claim('a', T0 + 10, LEASE_MS);
      expect(claim.kind).toBe('claimed');
      expect(claim.kind === 'claimed' && claim.record).toMatchObject({
        status: 'running',
        leaseUntil: T0 + 10 + LEASE_MS,
        updatedAt: T0 + 10,
        pipeline: 'digest',
      });
      expect(await store.get('a')).toMatchObject({ status: 'running', leaseUntil: T0 + 10 + LEASE_MS });
    });

    it('answers busy while another worker holds the lease, up to and at its end, and claimable just after', async () => {
      const second = fixture.connect();
      await store.create(job('a'));
      expect((await store.claim('a', T0, LEASE_MS)).kind).toBe('claimed');
      expect(await second.claim('a', T0 + LEASE_MS - 1, LEASE_MS)).toEqual({ kind: 'busy' });
      expect(await second.claim('a', T0 + LEASE_MS, LEASE_MS)).toEqual({ kind: 'busy' });
      const retaken = await second.claim('a', T0 + LEASE_MS + 1, LEASE_MS);
      expect(retaken.kind).toBe('claimed');
      expect(retaken.kind === 'claimed' && retaken.record.leaseUntil).toBe(T0 + 2 * LEASE_MS + 1);
    });

    it('answers missing for an unknown job', async () => {
      expect(await store.claim('nope', T0, LEASE_MS)).toEqual({ kind: 'missing' });
    });

    it('lets exactly one of 20 concurrent claims win', async () => {
      await store.create(job('hot'));
      const claims = await Promise.all(
        Array.from({ length: 20 }, () => fixture.connect().claim('hot', T0, LEASE_MS)),
      );
      const kinds = claims.map((c) => c.kind);
      expect(kinds.filter((k) => k === 'claimed')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'busy')).toHaveLength(19);
    });

    it("gives a dead worker's job to exactly one of the workers that find its lease ended", async () => {
      await store.create(job('orphan'));
      await store.claim('orphan', T0, LEASE_MS);
      const after = T0 + LEASE_MS + 1;
      const claims = await Promise.all(
        Array.from({ length: 5 }, () => fixture.connect().claim('orphan', after, LEASE_MS)),
      );
      expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
      // The late result of the dead worker's run still lands only once.
      expect(await store.succeed('orphan', ANSWER, run('success', after + 1), after + 1)).toBe(true);
      expect(await fixture.connect().succeed('orphan', ANSWER, run('success', after + 2), after + 2)).toBe(
        false,
      );
      expect((await store.get('orphan'))?.runs).toHaveLength(1);
    });
  });

  describe('outcomes', () => {
    it('succeeds a running job once; a later claim says finished and hands over the record', async () => {
      await store.create(job('a'));
      await store.claim('a', T0, LEASE_MS);
      expect(await store.succeed('a', ANSWER, run('success', T0 + 500), T0 + 500)).toBe(true);
      expect(await store.succeed('a', ANSWER, run('success', T0 + 600), T0 + 600)).toBe(false);
      const claim = await store.claim('a', T0 + 700, LEASE_MS);
      expect(claim.kind).toBe('finished');
      const record = claim.kind === 'finished' ? claim.record : undefined;
      expect(record).toMatchObject({
        status: 'succeeded',
        result: { model: 'llama-or', content: 'All quiet.' },
      });
      expect(record?.runs).toEqual([
        {
          at: T0 + 500,
          reason: 'success',
          attempts: 2,
          route: 'gpt-mini:429,llama-or:200',
          model: 'llama-or',
        },
      ]);
      expect(record?.leaseUntil).toBeUndefined();
    });

    it('does not succeed a job that was never claimed', async () => {
      await store.create(job('a'));
      expect(await store.succeed('a', ANSWER, run('success', T0), T0)).toBe(false);
      expect((await store.get('a'))?.status).toBe('queued');
    });

    it('records the delivery once: true for the first caller, false after', async () => {
      await store.create(job('a'));
      await store.claim('a', T0, LEASE_MS);
      await store.succeed('a', ANSWER, run('success', T0 + 1), T0 + 1);
      const racing = await Promise.all([
        store.markDelivered('a', T0 + 2),
        fixture.connect().markDelivered('a', T0 + 2),
      ]);
      expect(racing.sort()).toEqual([false, true]);
      expect(await store.markDelivered('a', T0 + 3)).toBe(false);
      expect((await store.get('a'))?.deliver).toEqual({
        url: 'http://127.0.0.1:9/hook',
        secretEnv: 'HOOK_SECRET',
        deliveredAt: T0 + 2,
      });
    });

    it('records no delivery for a job that has no delivery target', async () => {
      await store.create(job('a', { deliver: undefined }));
      expect(await store.markDelivered('a', T0)).toBe(false);
      expect((await store.get('a'))?.deliver).toBeUndefined();
    });

    it('fails a running job terminally: failed with the error, and a later claim says finished', async () => {
      await store.create(job('a'));
      await store.claim('a', T0, LEASE_MS);
      await store.fail('a', run('stopped', T0 + 1), T0 + 1, {
        code: 'invalid_request',
        message: 'bad tool schema',
      });
      const claim = await store.claim('a', T0 + 2, LEASE_MS);
      expect(claim.kind).toBe('finished');
      expect(claim.kind === 'finished' && claim.record).toMatchObject({
        status: 'failed',
        error: { code: 'invalid_request', message: 'bad tool schema' },
        runs: [{ reason: 'stopped' }],
      });
    });

    it('puts a retryable failure back as retrying without a lease, claimable at once, runs kept', async () => {
      await store.create(job('a'));
      await store.claim('a', T0, LEASE_MS);
      await store.fail('a', run('exhausted', T0 + 1), T0 + 1, undefined);
      const retrying = await store.get('a');
      expect(retrying).toMatchObject({ status: 'retrying', runs: [{ reason: 'exhausted' }] });
      expect(retrying?.leaseUntil).toBeUndefined();
      expect((await store.claim('a', T0 + 2, LEASE_MS)).kind).toBe('claimed');
      await store.succeed('a', ANSWER, run('success', T0 + 3), T0 + 3);
      expect((await store.get('a'))?.runs.map((r) => r.reason)).toEqual(['exhausted', 'success']);
    });

    it('leaves a job that another worker already finished as it is when a late fail arrives', async () => {
      await store.create(job('a'));
      await store.claim('a', T0, LEASE_MS);
      await store.succeed('a', ANSWER, run('success', T0 + 1), T0 + 1);
      await store.fail('a', run('exhausted', T0 + 2), T0 + 2, undefined);
      expect(await store.get('a')).toMatchObject({ status: 'succeeded', runs: [{ reason: 'success' }] });
    });
  });
});
