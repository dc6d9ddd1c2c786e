import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

// What LangChain's withStructuredOutput(zodSchema) and any zod 4 user send: draft 2020-12.
const ZOD_SCHEMA = z.toJSONSchema(
  z.object({ city: z.string(), temperatures: z.array(z.number()).min(1) }),
) as Record<string, unknown>;
const asked = (schema: Record<string, unknown>) => ({
  model: 'p',
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
});

describe('structured output with the JSON Schema draft the client names', () => {
  it('answers a request whose schema zod 4 generated (draft 2020-12)', async () => {
    expect(ZOD_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [
      { text: '{"city":"Oslo","temperatures":[]}' },
      { text: '{"city":"Oslo","temperatures":[3]}' },
    ]);
    const res = await h.post(asked(ZOD_SCHEMA));
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe('{"city":"Oslo","temperatures":[3]}');
    // The first answer broke the 2020-12 schema's minItems: checked, repaired on the same route.
    expect(res.headers.get('x-switchyard-route')).toBe('a:schema_invalid,a:200');
  });

  it('refuses an unknown $schema with a 400 naming it, before any upstream call', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    const res = await h.post(asked({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }));
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(
      /^response_format\.json_schema\.schema\.\$schema: 'http:\/\/json-schema\.org\/draft-04\/schema#' is not a JSON Schema draft/,
    );
    expect(h.received('model-a')).toBe(0);
  });
});
