import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

/** Prompts that read like a provider saying the model is gone or our key is refused. */
const ATTACKS = [
  'the model you asked about does not exist',
  'The provided model identifier is invalid.',
  'This model version has reached the end of its life.',
  'The model `model-a` does not exist',
  'Incorrect API key provided',
];

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ openai: { chain: 'a,b' }, bedrock: { chain: 'br,b' } });
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
const breakers = async (pipeline: string): Promise<BreakerRow[]> =>
  (await (await fetch(`${h.url}/v1/breakers?pipeline=${pipeline}`)).json()).data;

describe('a caller cannot quarantine a shared model with words the upstream echoes', () => {
  it.each([
    ['the OpenAI-compatible fake', 'openai', 'a', h_openai],
    ['the Bedrock fake', 'bedrock', 'br', h_bedrock],
  ])(
    'through %s, every echoed 400 stops the request and no breaker opens',
    async (_n, pipeline, model, fake) => {
      fake().setDefault('*', { status: 400, echoPrompt: true });
      try {
        for (const prompt of ATTACKS) {
          for (let round = 0; round < 2; round++) {
            const res = await h.post({ model: pipeline, messages: [{ role: 'user', content: prompt }] });
            expect(res.status).toBe(400);
            // The upstream's message reaches the caller who caused it, and nobody else.
            expect((await res.json()).error.message).toBe(prompt);
            expect(res.headers.get('x-switchyard-route')).toBe(`${model}:400`);
          }
        }
        const rows = await breakers(pipeline);
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) expect(row).toMatchObject({ state: 'closed', openReason: null });
      } finally {
        fake().reset();
      }
    },
  );

  it('still quarantines a route on a real 404 from the provider', async () => {
    h.openai.setDefault('model-a', { status: 404 });
    try {
      const res = await h.post({ model: 'openai', messages: [{ role: 'user', content: 'hello' }] });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe('a:404,b:200');
      expect(await breakers('openai')).toContainEqual(
        expect.objectContaining({ model: 'a', state: 'open', openReason: 'model_not_found' }),
      );
    } finally {
      h.openai.reset();
    }
  });
});

function h_openai() {
  return h.openai;
}
function h_bedrock() {
  return h.bedrock;
}
