/**
 * Jobs stored before the front doors became folders keep running after it: records in the exact
 * shape the previous code wrote them (the literals below are copied from it: `newJobRecord` of
 * `POST /v1/jobs`, `scheduledRecord` of the fan-out, and a job the queue dead-lettered after its
 * runs failed), in every job store, run through today's runner, answer and deliver.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { Gateway } from '../../../lambda/core/gateway/gateway.js';
import type { JobRecord } from '../../../lambda/core/jobs/job.js';
import type { JobStore } from '../../../lambda/core/jobs/job-ports.js';
import { runJob } from '../../../lambda/core/jobs/run-job.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import { chatJobFormat } from '../../../lambda/doors/jobs/job-format.js';
import { parseJobMessage } from '../../../lambda/jobs/aws/sqs-job-queue.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createJobHarness } from '../../helpers/job-harness.js';
import { type JobStoreFixture, jobStoreFixtures } from './job-store-contract-harness.js';

const NOW = Date.UTC(2026, 10, 29, 3, 0, 0);

/** An API job as `POST /v1/jobs` stored it: the chat completion body without `stream`, owned, counted against its key. */
const apiJob = (): JobRecord => ({
  jobId: 'job_0123456789abcdef0123456789abcdef',
  pipeline: 'p',
  request: {
    model: 'p',
    messages: [
      { role: 'developer', content: 'Answer in one word.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    ],
    max_completion_tokens: 50,
    temperature: 0.2,
    stop: 'END',
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    tool_choice: 'auto',
  },
  status: 'queued',
  createdAt: NOW,
  updatedAt: NOW,
  runs: [],
  expiresAt: Math.floor(NOW / 1000) + 14 * 86_400,
  owner: 'team-a',
  keyLimits: true,
  enqueuedAt: NOW,
});

/** A scheduled job as the fan-out stored it, with its webhook, then dead-lettered after three failed runs. */
const deadLetteredScheduledJob = (): JobRecord => ({
  jobId: 'nightly:job-1:2026-11-29T03:00:00Z',
  publicId: 'job_fedcba9876543210fedcba9876543210',
  pipeline: 'p',
  request: { messages: [{ role: 'user', content: 'task 1' }], max_tokens: 20 },
  status: 'retrying',
  createdAt: NOW,
  updatedAt: NOW + 3_000,
  runs: [1, 2, 3].map((n) => ({
    at: NOW + n * 1_000,
    reason: 'exhausted' as const,
    attempts: 3,
    route: 'a:503,b:503,c:503',
    failureClass: 'unavailable' as const,
  })),
  deliver: { url: 'http://127.0.0.1:9/hook', secretName: undefined, secretEnv: 'HOOK_SECRET' },
  enqueuedAt: NOW,
  schedule: 'nightly',
  expiresAt: Math.floor(NOW / 1000) + 14 * 86_400,
});

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each(jobStoreFixtures(() => dynalite))(
  'a job stored by the previous version, in $name',
  ({ open }) => {
    let fixture: JobStoreFixture;
    let store: JobStore;
    let h: ReturnType<typeof createJobHarness>;
    let seen: ChatRequest[];
    const run = (jobId: string) => {
      const gateway: Pick<Gateway, 'resolveTarget' | 'generate'> = {
        resolveTarget: h.gateway.resolveTarget,
        generate: (target, request, context) => {
          seen.push(request);
          return h.gateway.generate(target, request, context);
        },
      };
      return runJob(jobId, {
        store,
        gateway,
        format: chatJobFormat,
        deliverer: h.deliverer,
        clock: h.clock,
        leaseMs: 60_000,
        log: silentLogger,
      });
    };
    beforeEach(async () => {
      h = createJobHarness();
      h.clock.set(NOW + 10_000);
      fixture = await open(h.clock);
      store = fixture.store;
      seen = [];
    });
    afterEach(() => fixture.close());

    it('runs an API job and routes the same neutral request the old runner built from it', async () => {
      expect(await store.create(apiJob())).toBe(true);
      // The queue message is only the id, as before: a message sent by the old code parses.
      const message = parseJobMessage('{"jobId":"job_0123456789abcdef0123456789abcdef"}');
      expect(message).toEqual({ ok: true, message: { jobId: 'job_0123456789abcdef0123456789abcdef' } });

      expect(await run('job_0123456789abcdef0123456789abcdef')).toBe('done');
      expect(seen).toEqual([
        {
          messages: [
            { role: 'system', content: 'Answer in one word.' },
            { role: 'user', content: 'Weather?' },
          ],
          maxTokens: 50,
          temperature: 0.2,
          topP: undefined,
          stop: ['END'],
          tools: [{ name: 'get_weather', description: undefined, parameters: { type: 'object' } }],
          toolChoice: 'auto',
          responseFormat: undefined,
        },
      ]);
      const record = await store.get('job_0123456789abcdef0123456789abcdef');
      expect(record).toMatchObject({
        status: 'succeeded',
        result: { content: expect.stringMatching(/^answer from /) },
      });
      // The stored request is left exactly as the old code wrote it.
      expect(record?.request).toEqual(apiJob().request);
    });

    it('replays a dead-lettered scheduled job: it runs again and delivers its webhook once', async () => {
      expect(await store.create(deadLetteredScheduledJob())).toBe(true);
      expect(await run('nightly:job-1:2026-11-29T03:00:00Z')).toBe('done');
      const record = await store.get('nightly:job-1:2026-11-29T03:00:00Z');
      expect(record?.status).toBe('succeeded');
      expect(record?.runs).toHaveLength(4);
      expect(h.deliveries).toHaveLength(1);
      expect(h.deliveries[0]?.body).toMatchObject({
        jobId: 'job_fedcba9876543210fedcba9876543210',
        status: 'succeeded',
        pipeline: 'p',
        result: {
          object: 'chat.completion',
          choices: [{ message: { content: expect.stringMatching(/^answer from /) } }],
        },
      });
      expect(seen[0]?.maxTokens).toBe(20);
    });

    it('fails a stored request that no longer reads, naming the field, instead of crashing the worker', async () => {
      const broken = { ...apiJob(), request: { messages: [{ role: 'wizard', content: 'x' }] } };
      expect(await store.create(broken)).toBe(true);
      expect(await run(broken.jobId)).toBe('done');
      const record = await store.get(broken.jobId);
      expect(record?.status).toBe('failed');
      expect(record?.error).toEqual({
        code: 'invalid_request',
        message: expect.stringMatching(/^stored request messages\[0\]\.role: /),
      });
      expect(seen).toEqual([]);
    });
  },
);
