import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer'],
  additionalProperties: false,
};
const asked = (extra: Record<string, unknown> = {}) => ({
  model: 'p',
  messages: [{ role: 'user', content: 'Is the service up?' }],
  response_format: { type: 'json_schema', json_schema: { name: 'status', schema: SCHEMA, strict: true } },
  ...extra,
});
const GOOD = '{"answer":"yes","confidence":0.9}';
const lines = () => h.attempts() as AttemptLedgerEntry[];

describe('structured output over HTTP', () => {
  it('a fenced answer passes, and the caller gets the JSON without the fence', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ text: `\`\`\`json\n${GOOD}\n\`\`\`` }]);
    const res = await h.post(asked());
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe(GOOD);
    expect(res.headers.get('x-switchyard-route')).toBe('a:200');
    expect(h.openai.requestsFor('model-a')[0]?.responseFormat).toMatchObject({ type: 'json_schema' });
  });

  it('a schema-invalid answer is repaired on the next attempt, which carries the errors and the schema', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ text: '{"response":"yes"}' }, { text: GOOD }]);
    const res = await h.post(asked());
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe(GOOD);
    expect(res.headers.get('x-switchyard-route')).toBe('a:schema_invalid,a:200');
    expect(res.headers.get('x-switchyard-attempts')).toBe('2');
    expect(lines().map((a) => [a.action, a.outcome])).toEqual([
      ['first', 'schema_invalid'],
      ['retry', 'ok'],
    ]);
    const repair = h.openai.requestsFor('model-a')[1]?.messages ?? [];
    expect(repair.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repair[1]?.text).toBe('{"response":"yes"}');
    expect(repair[2]?.text).toContain("/ must have required property 'answer'");
    expect(repair[2]?.text).toContain(JSON.stringify(SCHEMA));
    expect(h.received('model-b')).toBe(0);
  });

  it('a same-model repair at the route’s declared quota goes to the next model, never waits, and is labelled', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b' } },
      {
        configure: (c) =>
          Object.assign(c, { capacity: { quotas: { fake: { 'model-a': { requestsPerMinute: 1 } } } } }),
      },
    );
    h.openai.script('model-a', [{ text: '{"response":"yes"}' }, { text: GOOD }]);
    h.openai.script('model-b', [{ text: GOOD }]);
    const res = await h.post(asked());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:schema_invalid,!a:quota,b:200');
    expect(h.received('model-a')).toBe(1);
    // The repair (the refused answer and the errors) went to b.
    const repair = h.openai.requestsFor('model-b')[0]?.messages ?? [];
    expect(repair.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(lines()[1]?.skipped).toEqual([expect.objectContaining({ route: 'a', reason: 'quota' })]);
  });

  it('an answer that is never valid fails with 502 schema_invalid and the validation errors', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('model-a', { text: 'Sure! It is up.' });
    h.openai.setDefault('model-b', { text: '{"answer":true}' });
    const res = await h.post(asked());
    expect(res.status).toBe(502);
    const { error } = await res.json();
    expect(error.code).toBe('schema_invalid');
    expect(error.type).toBe('api_error');
    expect(error.message).toContain('/answer must be string');
    expect(error.message).toContain('route: a:schema_invalid,a:schema_invalid,b:schema_invalid');
    expect(error.message).not.toContain('Sure!');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0]).toMatchObject({ reason: 'exhausted', failureClass: 'schema_invalid' });
  });

  it('json_object: an answer that is not an object falls back', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b', structuredOutput: { repairAttempts: 0 } } });
    h.openai.script('model-a', [{ text: '[1,2]' }]);
    h.openai.script('model-b', [{ text: '{"ok":true}' }]);
    const res = await h.post({ ...asked(), response_format: { type: 'json_object' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:schema_invalid,b:200');
  });

  it('a schema the validator cannot use is a 400 naming it, and nothing is sent upstream', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const bad = asked({
      response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'objekt' } } },
    });
    const res = await h.post(bad);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(/^response_format\.json_schema\.schema: schema is invalid: data\/type/);
    expect(h.received('model-a')).toBe(0);
  });

  it('a response_format of the wrong shape is a 400 naming the field', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const res = await h.post(
      asked({ response_format: { type: 'json_schema', json_schema: { schema: [] } } }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('response_format');
  });

  it('a stream is checked at its end: valid JSON ends with [DONE]', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.script('model-a', [{ text: GOOD }]);
    const text = await (await h.post(asked({ stream: true }))).text();
    expect(text).toContain('[DONE]');
  });

  it('a stream whose JSON fails the check ends with an error event and no [DONE], recorded as partial', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ text: '{"response":"yes"}' }]);
    const res = await h.post(asked({ stream: true }));
    expect(res.status).toBe(200);
    const text = await res.text();
    const last =
      text
        .split('\n\n')
        .filter(Boolean)
        .at(-1)
        ?.replace(/^data: /, '') ?? '';
    expect(JSON.parse(last).error).toMatchObject({ code: 'stream_interrupted' });
    expect(JSON.parse(last).error.message).toContain("must have required property 'answer'");
    expect(text).not.toContain('[DONE]');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0] as RequestLedgerEntry).toMatchObject({
      reason: 'partial',
      failureClass: 'schema_invalid',
    });
    expect(lines()).toEqual([expect.objectContaining({ outcome: 'schema_invalid', phase: 'after_output' })]);
    expect(h.received('model-b')).toBe(0);
  });
});
