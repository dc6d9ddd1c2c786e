import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleConfig } from '../../lambda/core/catalog/jobs-config-schema.js';
import { fanOutSchedule } from '../../lambda/core/jobs/fan-out-schedule.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { bearer, type GatewayHarness, memoryJobs, startGatewayHarness } from '../helpers/gateway-harness.js';

const KEYS = {
  app: 'sy-app-key-0123456789',
  reader: 'sy-reader-key-0123456789',
  ops: 'sy-ops-key-0123456789',
};
const BODY = { model: 'p', messages: [{ role: 'user', content: 'hello' }] };

let h: GatewayHarness;
let internalId: string;
let publicId: string;
const jobs = memoryJobs({ maxJobs: 3 });

beforeAll(async () => {
  h = await startGatewayHarness(
    { p: { chain: 'a' } },
    {
      jobs,
      auth: { keys: KEYS, operatorKeys: ['ops'] },
      configure: (config) => {
        config.schedules = {
          nightly: {
            expression: 'rate(1 day)',
            pipeline: 'p',
            readers: ['reader'],
            jobs: [{ id: 'acct-1', request: { messages: [{ role: 'user', content: 'digest' }] } }],
          },
        };
      },
    },
  );
  const nightly = h.config.schedules.nightly as ScheduleConfig;
  const fired = await fanOutSchedule(nightly, 'nightly', '2026-11-29T03:00:00Z', {
    store: jobs.store,
    queue: jobs.queue,
    clock: systemClock,
    random: seededRandom(1),
    retentionDays: 1,
  });
  internalId = fired.enqueued[0]?.jobId as string;
  publicId = fired.enqueued[0]?.publicId as string;
});
afterAll(() => h.close());

const get = (path: string, key: string) => fetch(`${h.url}${path}`, { headers: bearer(key) });

describe('operator views', () => {
  it.each(['/v1/breakers', '/v1/pipelines'])(
    'refuses %s to a key that is not an operator key with 403',
    async (path) => {
      const res = await get(path, KEYS.app);
      expect(res.status).toBe(403);
      expect((await res.json()).error).toMatchObject({
        code: 'permission_denied',
        type: 'invalid_request_error',
      });
    },
  );

  it.each(['/v1/breakers', '/v1/pipelines'])('shows %s to an operator key', async (path) => {
    const res = await get(path, KEYS.ops);
    expect(res.status).toBe(200);
    expect((await res.json()).object).toBe('list');
  });

  it('still serves chat completions and the model list to every key', async () => {
    expect((await get('/v1/models', KEYS.app)).status).toBe(200);
  });
});

describe('scheduled jobs', () => {
  it('have a random public id, not the guessable <schedule>:<job>:<time>', () => {
    expect(internalId).toBe('nightly:acct-1:2026-11-29T03:00:00Z');
    expect(publicId).toMatch(/^job_[0-9a-f]{32}$/);
  });

  it("are readable by the schedule's readers and by operator keys, by their public id", async () => {
    for (const key of [KEYS.reader, KEYS.ops]) {
      const res = await get(`/v1/jobs/${publicId}`, key);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: publicId, schedule: 'nightly' });
    }
  });

  it('read like a missing job to any other key', async () => {
    const res = await get(`/v1/jobs/${publicId}`, KEYS.app);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('job_not_found');
  });

  it('are never found by their internal id, not even by an operator', async () => {
    const res = await get(`/v1/jobs/${encodeURIComponent(internalId)}`, KEYS.ops);
    expect(res.status).toBe(404);
  });
});

describe('the memory job store at its bound', () => {
  it('answers 503 jobs_full rather than drop a queued job', async () => {
    // One scheduled job is queued; two more API jobs fill the three slots.
    const post = () =>
      fetch(`${h.url}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(KEYS.app) },
        body: JSON.stringify(BODY),
      });
    expect((await post()).status).toBe(202);
    expect((await post()).status).toBe(202);
    const full = await post();
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('30');
    expect((await full.json()).error.code).toBe('jobs_full');
    expect(jobs.store.all()).toHaveLength(3);
  });
});
