import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambda/core/catalog/parse-config.js';
import { silentLogger } from '../../lambda/core/logger.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { createMemoryJobQueue } from '../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore } from '../../lambda/jobs/memory/memory-job-store.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { type RunningServer, startServer } from '../../lambda/wiring/start-server.js';
import { systemClock } from '../../lambda/wiring/system-time.js';

const ALICE = 'sy-alice-key-0123456789';
const BOB = 'sy-bob-key-9876543210';
let server: RunningServer;

beforeAll(async () => {
  const config = parseConfig({
    providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
    models: { a: { provider: 'fake', model: 'model-a' } },
    pipelines: { p: { chain: 'a' } },
    auth: { keys: { alice: sha256Hex(ALICE), bob: sha256Hex(BOB) } },
  });
  const local = createLocalGateway({
    config,
    env: {},
    log: silentLogger,
    ledger: () => {},
    jobs: {
      store: createMemoryJobStore(),
      queue: createMemoryJobQueue({ clock: systemClock, maxReceiveCount: 3 }),
    },
  });
  server = await startServer(local.app, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server.close(500);
});

const as = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

describe('job ownership', () => {
  it('lets only the caller key that created an API job read it back', async () => {
    const created = await fetch(`${server.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as(ALICE) },
      body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'private question' }] }),
    });
    expect(created.status).toBe(202);
    const { id } = await created.json();

    expect((await fetch(`${server.url}/v1/jobs/${id}`, { headers: as(ALICE) })).status).toBe(200);
    const other = await fetch(`${server.url}/v1/jobs/${id}`, { headers: as(BOB) });
    expect(other.status).toBe(404);
    expect(JSON.stringify(await other.json())).not.toContain('private question');
    expect((await fetch(`${server.url}/v1/jobs/${id}`)).status).toBe(401);
  });
});
