import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

// Catastrophic on a backtracking engine: every `a` doubles the ways to fail at the `!`.
const REDOS = '^(a|a)*$';
const ATTACK_ANSWER = JSON.stringify({ x: `${'a'.repeat(30)}!` });
const withSchema = (schema: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  model: 'p',
  messages: [{ role: 'user', content: 'Say thirty a and a bang.' }],
  response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
  ...extra,
});
const redosSchema = { type: 'object', properties: { x: { type: 'string', pattern: REDOS } } };

async function refusal(schema: Record<string, unknown>) {
  const res = await h.post(withSchema(schema));
  expect(res.status).toBe(400);
  const { error } = await res.json();
  expect(error.type).toBe('invalid_request_error');
  expect(h.received('model-a')).toBe(0);
  return error.message as string;
}

describe('caller-supplied schemas cannot block the process', () => {
  // A backtracking check of this answer holds the event loop for tens of seconds; this test's
  // own timeout is far below that, so a blocking check fails it even where the order would hold.
  it('answers /healthz before a request whose answer meets a ReDoS pattern, which ends schema_invalid', {
    timeout: 10_000,
  }, async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { text: ATTACK_ANSWER, latencyMs: 50 });
    const done: string[] = [];
    const chat = h.post(withSchema(redosSchema)).then((res) => {
      done.push('chat');
      return res;
    });
    const health = fetch(`${h.url}/healthz`).then((res) => {
      done.push('healthz');
      return res;
    });
    expect((await health).status).toBe(200);
    const res = await chat;
    expect(done).toEqual(['healthz', 'chat']);
    expect(res.status).toBe(502);
    const { error } = await res.json();
    expect(error.code).toBe('schema_invalid');
    expect(error.message).toContain(`/x must match pattern "${REDOS}"`);
    // One repair, then plain retries: every attempt's answer was checked and refused.
    expect(res.headers.get('x-switchyard-route')).toBe('a:schema_invalid,a:schema_invalid,a:schema_invalid');
  });

  it('answers /healthz before a json_object request whose answer is a fence and 5,000 spaces', {
    timeout: 10_000,
  }, async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { text: `\`\`\`${' '.repeat(5_000)}x`, latencyMs: 50 });
    const done: string[] = [];
    const chat = h.post({ ...withSchema({}), response_format: { type: 'json_object' } }).then((res) => {
      done.push('chat');
      return res;
    });
    await fetch(`${h.url}/healthz`).then(() => done.push('healthz'));
    const res = await chat;
    expect(done).toEqual(['healthz', 'chat']);
    expect(res.status).toBe(502);
    expect((await res.json()).error.message).toContain('the answer is not valid JSON');
  });

  it('accepts the answer that matches the same pattern', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { text: JSON.stringify({ x: 'a'.repeat(30) }) });
    const res = await h.post(withSchema(redosSchema));
    expect(res.status).toBe(200);
  });

  it('refuses a lookahead with a 400 naming its place in the schema, before any attempt', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const message = await refusal({ properties: { x: { pattern: '^(?=a)a+$' } } });
    expect(message).toBe(
      'response_format.json_schema.schema.properties.x.pattern: uses a lookahead ((?=), which the linear-time regex engine (RE2) cannot run',
    );
  });

  it('refuses a backreference in a patternProperties key, naming the key', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const message = await refusal({ patternProperties: { '^(a)\\1$': { type: 'string' } } });
    expect(message).toBe(
      'response_format.json_schema.schema.patternProperties["^(a)\\\\1$"]: uses a backreference (\\1), which the linear-time regex engine (RE2) cannot run',
    );
  });

  it('refuses a stream request with such a schema the same way', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const res = await h.post(withSchema({ items: [{ pattern: '(?<!x)y' }] }, { stream: true }));
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(
      /^response_format\.json_schema\.schema\.items\[0\]\.pattern: uses a lookbehind \(\(\?<!\)/,
    );
    expect(h.received('model-a')).toBe(0);
  });

  it('refuses a schema nested deeper than structuredOutput.maxSchemaDepth, naming where', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      { configure: (config) => Object.assign(config, { structuredOutput: { maxSchemaDepth: 3 } }) },
    );
    const message = await refusal({ properties: { x: { not: {} } } });
    expect(message).toBe(
      'response_format.json_schema.schema.properties.x.not: nests deeper than 3 levels (structuredOutput.maxSchemaDepth)',
    );
  });

  it('refuses a schema deeper than the default structuredOutput.maxSchemaDepth (32) inside the body bound: a 400 naming where', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    // 40 levels of schema: the body stays under limits.maxJsonDepth (64), so the schema bound decides.
    const deep = `${'{"not":'.repeat(39)}{}${'}'.repeat(39)}`;
    const body = JSON.stringify(withSchema({})).replace('"schema":{}', `"schema":${deep}`);
    const res = await h.post(body);
    expect(res.status).toBe(400);
    const { message } = (await res.json()).error;
    expect(h.received('model-a')).toBe(0);
    expect(message).toMatch(
      /^response_format\.json_schema\.schema(\.not){32}: nests deeper than 32 levels \(structuredOutput\.maxSchemaDepth\)$/,
    );
  });

  it('refuses a schema 5,000 levels deep at the body bound, before it is parsed: a 400, not a 500', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    // Written as text: JSON.stringify of the object would overflow this test's own stack.
    const deep = `${'{"not":'.repeat(4_999)}{}${'}'.repeat(4_999)}`;
    const body = JSON.stringify(withSchema({})).replace('"schema":{}', `"schema":${deep}`);
    const res = await h.post(body);
    expect(res.status).toBe(400);
    const { message } = (await res.json()).error;
    expect(h.received('model-a')).toBe(0);
    expect(message).toMatch(
      /^response_format\.json_schema\.schema(\.not){5}…: nested deeper than 64 levels of objects and arrays \(limits\.maxJsonDepth\)$/,
    );
  });
});
