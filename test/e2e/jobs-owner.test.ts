import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type GatewayHarness, memoryJobs, startGatewayHarness } from '../helpers/gateway-harness.js';

const ALICE = 'sy-alice-key-0123456789';
const BOB = 'sy-bob-key-9876543210';
let h: GatewayHarness;

beforeAll(async () => {
  h = await startGatewayHarness(
    { p: { chain: 'a' } },
    { jobs: memoryJobs(), auth: { keys: { alice: ALICE, bob: BOB } } },
  );
});

afterAll(() => h.close());

describe('job ownership', () => {
  it('lets only the caller key that created an API job read it back', async () => {
    const created = await fetch(`${h.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(ALICE) },
      body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'private question' }] }),
    });
    expect(created.status).toBe(202);
    const { id } = await created.json();

    expect((await fetch(`${h.url}/v1/jobs/${id}`, { headers: bearer(ALICE) })).status).toBe(200);
    const other = await fetch(`${h.url}/v1/jobs/${id}`, { headers: bearer(BOB) });
    expect(other.status).toBe(404);
    expect(JSON.stringify(await other.json())).not.toContain('private question');
    expect((await fetch(`${h.url}/v1/jobs/${id}`)).status).toBe(401);
  });
});
