import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

/** The figure of the attack in issue 26: past the memory store's 10,000 pipelines. */
const CHAINS = 10_050;
/** Requests in flight at once: enough to keep the loopback busy, few enough for a shared machine. */
const PARALLEL = 16;

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ p: { chain: 'a,b' } });
});
afterAll(async () => {
  await h.close();
});

interface BreakerRow {
  pipeline: string;
  model: string;
  state: string;
  openReason: string | null;
}
/** `GET /v1/breakers`, of one pipeline or of all. */
const breakers = async (pipeline?: string): Promise<BreakerRow[]> => {
  const query = pipeline === undefined ? '' : `?pipeline=${encodeURIComponent(pipeline)}`;
  return ((await (await fetch(`${h.url}/v1/breakers${query}`)).json()) as { data: BreakerRow[] }).data;
};

/** Sends one request per chain, `PARALLEL` at a time; every one must be answered. */
async function sendAll(chains: readonly string[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < chains.length) {
      const model = chains[next++];
      const res = await h.post({ model, ...HELLO });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
}

describe('ad-hoc chains cannot evict a configured pipeline’s breakers', () => {
  it(`leaves a quarantine in place after ${CHAINS} distinct ad-hoc chains`, async () => {
    h.openai.setDefault('model-a', { status: 404 });
    const first = await h.post({ model: 'p', ...HELLO });
    expect(first.headers.get('x-switchyard-route')).toBe('a:404,b:200');
    expect(await breakers('p')).toContainEqual(
      expect.objectContaining({ model: 'a', state: 'open', openReason: 'model_not_found' }),
    );

    // Distinct canonical chains (each weight prints differently), none of them naming `a`.
    await sendAll(Array.from({ length: CHAINS }, (_, i) => `(b*${i + 2}|c)`));

    expect(await breakers('p')).toContainEqual(
      expect.objectContaining({ model: 'a', state: 'open', openReason: 'model_not_found' }),
    );
    const sentToA = h.received('model-a');
    const next = await h.post({ model: 'p', ...HELLO });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-switchyard-route')).toBe('b:200');
    expect(h.received('model-a')).toBe(sentToA);
  }, 180_000);

  it('keeps every ad-hoc chain’s breakers in the one reserved bucket `adhoc`, per model', async () => {
    const rows = await breakers('adhoc');
    expect(rows.map((r) => r.model).sort()).toEqual(['b', 'c']);
    for (const row of rows) expect(row).toMatchObject({ pipeline: 'adhoc', state: 'closed' });
    const listed = await breakers();
    expect(new Set(listed.map((r) => r.pipeline))).toEqual(new Set(['p', 'adhoc']));
  });
});

describe('spellings of an overridden pipeline name cannot make new pipelines', () => {
  it('does not route another spelling of a configured pipeline as a pipeline of its own', async () => {
    h.env.MODEL_P = 'c';
    try {
      expect((await h.post({ model: 'p', ...HELLO })).headers.get('x-switchyard-model')).toBe('c');
      const variant = await h.post({ model: 'P', ...HELLO });
      expect(variant.status).toBe(404);
      expect(await fetch(`${h.url}/v1/breakers?pipeline=P`).then((r) => r.status)).toBe(404);
    } finally {
      delete h.env.MODEL_P;
    }
  });

  it('keeps every spelling of a pipeline only an override names under one breaker scope', async () => {
    h.env.MODEL_F_O = 'c';
    try {
      for (const model of ['f-o', 'F.O', 'f\u4e00o'])
        expect((await h.post({ model, ...HELLO })).headers.get('x-switchyard-model')).toBe('c');
      const [one, other] = await Promise.all([breakers('f-o'), breakers('F~O')]);
      expect(one).toEqual([expect.objectContaining({ pipeline: 'f-o', model: 'c', windowAttempts: 3 })]);
      expect(other).toEqual([expect.objectContaining({ pipeline: 'F~O', model: 'c', windowAttempts: 3 })]);
    } finally {
      delete h.env.MODEL_F_O;
    }
  });
});
