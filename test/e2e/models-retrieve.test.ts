/** `GET /v1/models/{id}`, read by openai-node's `models.retrieve` as an application uses it. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ p: { chain: 'a,br' } });
});
afterAll(async () => {
  await h?.close();
});

describe('models.retrieve', () => {
  it('returns a pipeline as a model owned by switchyard-pipeline', async () => {
    expect(await h.client.models.retrieve('p')).toEqual({
      id: 'p',
      object: 'model',
      created: 0,
      owned_by: 'switchyard-pipeline',
    });
  });

  it('returns a model key owned by its provider, as the list shows it', async () => {
    const one = await h.client.models.retrieve('br');
    expect(one).toEqual({ id: 'br', object: 'model', created: 0, owned_by: 'br' });
    const list = await h.client.models.list();
    expect(list.data.find((m) => m.id === 'br')).toEqual(one);
  });

  it('answers an unknown id with a 404 in the OpenAI envelope naming it', async () => {
    const error = await h.client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.code).toBe('model_not_found');
    expect(notFound.param).toBe('model');
    expect(notFound.message).toMatch(/model 'no-such-model' not found: GET \/v1\/models lists/);
  });

  it('reads an id holding a slash whole, and cuts a long one before echoing it', async () => {
    const slash = await fetch(`${h.url}/v1/models/meta/llama`);
    expect(slash.status).toBe(404);
    expect(((await slash.json()) as { error: { message: string } }).error.message).toContain("'meta/llama'");
    const long = await fetch(`${h.url}/v1/models/${'x'.repeat(5_000)}`);
    const { message } = ((await long.json()) as { error: { message: string } }).error;
    expect(message.length).toBeLessThan(1_000);
  });
});
