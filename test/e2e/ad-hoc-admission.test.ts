import { afterEach, describe, expect, it } from 'vitest';
import {
  bearer,
  type GatewayHarness,
  HELLO,
  memoryJobs,
  PRICE,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789' };

const open: GatewayHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

/** Pipeline `p` (`a,b`), embedding model `e1`, jobs on, these admission settings; caller keys with `auth`. */
async function gateway(admission: Record<string, unknown>, options: { auth?: boolean } = {}) {
  const jobs = memoryJobs();
  const h = await startGatewayHarness(
    { p: { chain: 'a,b' } },
    {
      jobs,
      ...(options.auth ? { auth: { keys: KEYS } } : {}),
      configure: (config) => {
        config.models.e1 = { provider: 'fake', model: 'model-e1', dimensions: 8, price: PRICE };
        config.admission = admission;
      },
    },
  );
  h.openai.setDefault('model-e1', { dimensions: 8 });
  open.push(h);
  return Object.assign(h, { jobs });
}

interface ErrorBody {
  error: { code?: string; param?: string | null; message: string; type: string };
  type?: string;
}

/** One request with `model` on each door that takes a chain: chat, Messages, jobs (and embeddings for `e1`). */
function doors(h: GatewayHarness, model: string, headers: Record<string, string>) {
  const json = { 'content-type': 'application/json', ...headers };
  const post = (path: string, body: unknown) =>
    fetch(`${h.url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  return {
    chat: () => h.post({ model, ...HELLO }, headers),
    messages: () => h.postMessages({ model, max_tokens: 16, ...HELLO }, headers),
    jobs: () => post('/v1/jobs', { model, ...HELLO }),
    embeddings: () => post('/v1/embeddings', { model, input: 'hello' }),
  };
}

/** The refusal's field, from the OpenAI envelope or (on `/v1/messages`) Anthropic's. */
async function refusedBy(res: Response): Promise<string> {
  expect(res.status).toBe(403);
  const body = (await res.json()) as ErrorBody;
  if (new URL(res.url).pathname === '/v1/messages')
    expect(body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  else expect(body.error).toMatchObject({ code: 'ad_hoc_chain_refused', param: 'model' });
  return /\((admission\.[^)]+)\)/.exec(body.error.message)?.[1] ?? body.error.message;
}

describe('ad-hoc chains under the reserved pipeline adhoc', () => {
  it('refuses the 11th ad-hoc request at admission.pipelines.adhoc.requestsPerMinute 10, over every chain together', async () => {
    const h = await gateway({ pipelines: { adhoc: { requestsPerMinute: 10 } } });
    const chains = ['b', 'b', 'b', '(a|b)', 'c', 'b', 'a,b', 'b', 'c', 'b'];
    for (const model of chains) expect((await h.post({ model, ...HELLO })).status).toBe(200);
    const sent = h.received('model-b');
    const refused = await h.post({ model: 'b', ...HELLO });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error).toMatchObject({
      code: 'rate_limit_exceeded',
      param: 'admission.pipelines.adhoc.requestsPerMinute',
    });
    expect(body.error.message).toContain("pipeline 'adhoc' has reached its limit of 10 requests per minute");
    expect(h.received('model-b')).toBe(sent);
    // A configured pipeline is not an ad-hoc chain: its requests are not counted there.
    expect((await h.post({ model: 'p', ...HELLO })).status).toBe(200);
  });
});

describe('ad-hoc jobs under the reserved pipeline adhoc', () => {
  it('counts jobs of ad-hoc chains against admission.pipelines.adhoc, all chains together: the second is refused at POST', async () => {
    const h = await gateway({ pipelines: { adhoc: { requestsPerMinute: 1 } } });
    const first = await doors(h, 'b', {}).jobs();
    expect(first.status).toBe(202);
    const id = ((await first.json()) as { id: string }).id;
    // Another chain text, the same reserved pipeline: its one request a minute is taken.
    const second = await doors(h, '(a|b)', {}).jobs();
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(h.jobs.store.all()).toHaveLength(1);
    h.startWorker();
    const record = () => h.jobs.store.all().find((r) => r.jobId === id);
    await waitFor(() => record()?.status === 'succeeded');
    expect(record()?.runs).toHaveLength(1);
  });
});

describe('admission.adHocChains', () => {
  it('refuses every ad-hoc chain on every door for a key with adHocChains false, naming the setting', async () => {
    const h = await gateway({ keys: { alice: { adHocChains: false } } }, { auth: true });
    const alice = doors(h, 'b', bearer(KEYS.alice));
    for (const send of [alice.chat, alice.messages, alice.jobs])
      expect(await refusedBy(await send())).toBe('admission.keys.alice.adHocChains');
    expect(await refusedBy(await doors(h, 'e1', bearer(KEYS.alice)).embeddings())).toBe(
      'admission.keys.alice.adHocChains',
    );
    expect(h.received('model-b') + h.received('model-e1')).toBe(0);
    expect(h.requests()).toHaveLength(0);
    // Her pipelines still run, and another key keeps the global default (every chain).
    expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
    expect((await doors(h, 'b', bearer(KEYS.bob)).chat()).status).toBe(200);
  });

  it('lets a key send only the chains of its allow-list, compared in canonical form', async () => {
    const h = await gateway({ keys: { alice: { adHocChains: ['( a | b )', 'c'] } } }, { auth: true });
    const as = (model: string) => doors(h, model, bearer(KEYS.alice));
    // Spaces, and a raw upstream id for `a`, read as the same chain.
    expect((await as('(a|b)').chat()).status).toBe(200);
    expect((await as('(model-a|b)').messages()).status).toBe(200);
    expect((await as('c').jobs()).status).toBe(202);
    for (const model of ['a', '(b|a)', 'a,b', 'c,a']) {
      expect(await refusedBy(await as(model).chat())).toBe('admission.keys.alice.adHocChains');
    }
    expect(await refusedBy(await as('b').jobs())).toBe('admission.keys.alice.adHocChains');
  });

  it('applies the global default to callers without a name (no auth), on every door', async () => {
    const h = await gateway({ adHocChains: false });
    const anyone = doors(h, 'b', {});
    for (const send of [anyone.chat, anyone.messages, anyone.jobs])
      expect(await refusedBy(await send())).toBe('admission.adHocChains');
    expect(await refusedBy(await doors(h, 'e1', {}).embeddings())).toBe('admission.adHocChains');
    expect((await h.post({ model: 'p', ...HELLO })).status).toBe(200);
  });

  it('lets a key’s own setting override the global default, both ways', async () => {
    const h = await gateway(
      { adHocChains: ['b'], keys: { alice: { adHocChains: true }, bob: { adHocChains: false } } },
      { auth: true },
    );
    expect((await doors(h, 'c', bearer(KEYS.alice)).chat()).status).toBe(200);
    expect(await refusedBy(await doors(h, 'b', bearer(KEYS.bob)).chat())).toBe(
      'admission.keys.bob.adHocChains',
    );
  });

  it('gives a key named in admission.keys without its own setting the global allow-list', async () => {
    const h = await gateway(
      { adHocChains: ['b'], keys: { alice: { requestsPerMinute: 100 } } },
      { auth: true },
    );
    expect((await doors(h, 'b', bearer(KEYS.alice)).chat()).status).toBe(200);
    expect(await refusedBy(await doors(h, 'c', bearer(KEYS.alice)).chat())).toBe('admission.adHocChains');
  });
});
