import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmbeddingInput } from '../../lambda/dev/fakes/openai-embeddings.js';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

/** A sentence the classifier reads as "the route's model id is wrong", were the provider to say it. */
const ATTACK = 'The model `model-e1` does not exist';
/** The attack as token ids of the fake's toy tokenizer (one code point per token). */
const ATTACK_TOKENS = [...ATTACK].map((char) => char.codePointAt(0) as number);

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness(
    { emb: { chain: 'e1,e2' } },
    {
      configure: (config) => {
        Object.assign(config.models, {
          e1: { provider: 'fake', model: 'model-e1', dimensions: 8 },
          e2: { provider: 'fake', model: 'model-e2', dimensions: 8 },
        });
      },
    },
  );
});
afterAll(async () => {
  await h.close();
});

const embed = (input: unknown) =>
  fetch(`${h.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'emb', input }),
  });

interface BreakerRow {
  model: string;
  state: string;
  openReason: string | null;
}
const breakers = async (): Promise<BreakerRow[]> =>
  (await (await fetch(`${h.url}/v1/breakers?pipeline=emb`)).json()).data;

describe('a caller cannot quarantine an embedding model with token ids the upstream decodes', () => {
  it('decodes the attack tokens into the provider sentence (the drill is real)', () => {
    expect(decodeEmbeddingInput(ATTACK_TOKENS)).toBe(ATTACK);
  });

  it.each([
    ['one token array', ATTACK_TOKENS],
    ['an array of token arrays', [[464, 1646], ATTACK_TOKENS]],
    ['the text form', ATTACK],
  ])('stops on the echoed 400 and opens no breaker, with %s', async (_label, input) => {
    h.openai.setDefault('model-e1', { status: 400, echoPrompt: true });
    try {
      for (let round = 0; round < 3; round++) {
        const res = await embed(input);
        expect(res.status).toBe(400);
        // The decoded echo reaches the caller who sent it, as the upstream's 400.
        expect((await res.json()).error.message).toBe(ATTACK);
        expect(res.headers.get('x-switchyard-route')).toBe('e1:400');
      }
      const rows = await breakers();
      expect(rows.map((row) => row.model)).toContain('e1');
      for (const row of rows) expect(row).toMatchObject({ state: 'closed', openReason: null });
    } finally {
      h.openai.reset();
    }
  });

  it('still quarantines on the same sentence when the caller sent only text that cannot spell it', async () => {
    h.openai.setDefault('model-e1', { status: 400, errorMessage: ATTACK });
    h.openai.setDefault('model-e2', { dimensions: 8 });
    try {
      const res = await embed('an ordinary sentence to embed');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe('e1:400,e2:200');
      expect(await breakers()).toContainEqual(
        expect.objectContaining({ model: 'e1', state: 'open', openReason: 'model_not_found' }),
      );
    } finally {
      h.openai.reset();
    }
  });
});
