/**
 * LangChain JS against the gateway over real HTTP: `ChatOpenAI(...).withStructuredOutput(zodSchema)`
 * with its default method sends a zod 4 (draft 2020-12) JSON Schema as `response_format`; the
 * gateway checks the answer against it, repairs a broken one, and LangChain parses the result.
 */
import { ChatOpenAI } from '@langchain/openai';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const Weather = z.object({ city: z.string(), temperatures: z.array(z.number()).min(1) });
const chat = () =>
  new ChatOpenAI({
    model: 'p',
    apiKey: 'caller-key',
    maxRetries: 0,
    configuration: { baseURL: `${h.url}/v1` },
  });

describe('LangChain withStructuredOutput against the gateway', () => {
  it('gets a parsed object with the default method, its draft 2020-12 schema checked by the gateway', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [
      { text: '{"city":"Oslo","temperatures":[]}' },
      { text: '{"city":"Oslo","temperatures":[3,5]}' },
    ]);
    const weather = await chat().withStructuredOutput(Weather).invoke('Weather in Oslo?');
    expect(weather).toEqual({ city: 'Oslo', temperatures: [3, 5] });
    // The default method is json_schema: the zod 4 schema (draft 2020-12) reached the upstream...
    const sent = h.openai.requests[0]?.body as {
      response_format: { type: string; json_schema: { schema: object } };
    };
    expect(sent.response_format.type).toBe('json_schema');
    expect(sent.response_format.json_schema.schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
    // ...and the gateway held the first answer to it (minItems) and repaired it on the same route.
    expect(h.openai.requests).toHaveLength(2);
    const [request] = h.requests();
    expect(request).toMatchObject({ reason: 'success', route: 'a:schema_invalid,a:200' });
  });
});
