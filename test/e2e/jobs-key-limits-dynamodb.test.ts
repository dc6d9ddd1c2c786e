import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { jobsSchema } from '../../lambda/core/catalog/jobs-config-schema.js';
import type { JobStore } from '../../lambda/core/jobs/job-ports.js';
import { ensureJobTable } from '../../lambda/jobs/aws/create-job-table.js';
import { createDynamoDbJobStore } from '../../lambda/jobs/aws/dynamodb-job-store.js';
import { createMemoryJobQueue } from '../../lambda/jobs/memory/memory-job-queue.js';
import { createDynamoDbAdmissionStore } from '../../lambda/stores/dynamodb-admission-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { bearer, type GatewayHarness, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789' };
// One reservation is exactly $0.0001 (see jobs-key-limits.test.ts): five fill a $0.0005 cap.
const JOB = { model: 'p', max_tokens: 10, messages: [{ role: 'user' as const, content: 'abcdefghij' }] };

let dynalite: RunningDynalite;
let table: Awaited<ReturnType<typeof openBreakerTable>>;
let tables = 0;
beforeAll(async () => {
  dynalite = await startDynalite();
  table = await openBreakerTable(dynalite);
});
afterAll(async () => {
  table.close();
  await dynalite.stop();
});

/** A gateway whose jobs and admission counters are in DynamoDB (a fresh jobs table each). */
async function gateway(admission: Record<string, unknown>) {
  const tableName = `jobs-e2e-${process.pid}-${++tables}`;
  await ensureJobTable(table.client, tableName);
  const store: JobStore = createDynamoDbJobStore({ client: createDocumentClient(table.client), tableName });
  const queue = createMemoryJobQueue({
    clock: systemClock,
    maxReceiveCount: jobsSchema.parse({}).maxReceiveCount,
  });
  const h = await startGatewayHarness(
    { p: { chain: 'a' } },
    {
      jobs: { store, queue },
      auth: { keys: KEYS },
      admissionStore: createDynamoDbAdmissionStore({
        client: createDocumentClient(table.client),
        tableName: table.tableName,
      }),
      configure: (config) => {
        config.admission = admission;
      },
    },
  );
  return { h, store };
}

interface ErrorBody {
  error: { code: string; param: string | null };
}

const postJob = (h: GatewayHarness, key: string) =>
  fetch(`${h.url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify(JOB),
  });

describe('jobs against key limits, on the DynamoDB job and admission stores', () => {
  it('admits no more of twenty jobs sent at once than a $0.0005/day key pays for, and runs exactly those', async () => {
    const { h } = await gateway({ keys: { alice: { usdPerDay: 0.0005 } } });
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => postJob(h, KEYS.alice)));
      const accepted = answers.filter((a) => a.status === 202).length;
      // Five reservations fill the cap exactly; under load a reservation may also time out, and
      // spend fails closed (503): never more than five in.
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThanOrEqual(5);
      const codes = await Promise.all(
        answers.filter((a) => a.status !== 202).map(async (a) => ((await a.json()) as ErrorBody).error.code),
      );
      for (const code of codes) expect(['budget_exceeded', 'admission_unavailable']).toContain(code);
      expect(codes).toContain('budget_exceeded');
      h.startWorker();
      await waitFor(() => h.requests().length === accepted, 10_000);
      expect(h.received('model-a')).toBe(accepted);
    } finally {
      await h.close();
    }
  });

  it('holds a key at its job quota while another key is accepted, and frees the places as its jobs finish', async () => {
    const { h, store } = await gateway({ keys: { alice: { maxQueuedJobs: 3 } } });
    try {
      const flood = await Promise.all(Array.from({ length: 8 }, () => postJob(h, KEYS.alice)));
      const ids = await Promise.all(
        flood.filter((a) => a.status === 202).map(async (a) => ((await a.json()) as { id: string }).id),
      );
      expect(ids).toHaveLength(3);
      const refused = flood.filter((a) => a.status === 429);
      expect(refused).toHaveLength(5);
      for (const answer of refused)
        expect(((await answer.json()) as ErrorBody).error).toMatchObject({
          code: 'job_quota_exceeded',
          param: 'admission.keys.alice.maxQueuedJobs',
        });
      expect((await postJob(h, KEYS.bob)).status).toBe(202);
      h.startWorker();
      const done = async () =>
        (await Promise.all(ids.map((id) => store.get(id)))).every((r) => r?.status === 'succeeded');
      const until = Date.now() + 10_000;
      while (!(await done()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(await done()).toBe(true);
      // Each succeeded job left alice's set: three places again.
      const again = await Promise.all(Array.from({ length: 3 }, () => postJob(h, KEYS.alice)));
      expect(again.map((a) => a.status)).toEqual([202, 202, 202]);
    } finally {
      await h.close();
    }
  });
});
