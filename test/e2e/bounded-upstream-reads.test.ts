/**
 * Issue 26, item 8: an upstream that answers 100 MB (a JSON answer, a body that is not JSON, one
 * endless SSE `data:` line or AWS event-stream message) is cut at the bound through the whole
 * gateway: the upstream sees the connection closed before it has sent it all, the attempt is a
 * counted `malformed_response` in the ledger and on the breaker, and the next route answers.
 * The memory figures are in bench/README.md#upstream-answer-size.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import {
  type OversizedAnswer,
  type OversizedUpstream,
  startOversizedUpstream,
} from '../../lambda/dev/fakes/oversized-upstream.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

const MB100 = 100 * 1024 * 1024;

let next: OversizedAnswer = { shape: 'json', bytes: MB100 };
let upstream: OversizedUpstream;
let h: GatewayHarness;

beforeAll(async () => {
  upstream = await startOversizedUpstream(() => next);
  h = await startGatewayHarness(
    {
      openai: { chain: 'huge-oa, a' },
      anthropic: { chain: 'huge-an, a' },
      bedrock: { chain: 'huge-br, a' },
    },
    {
      configure(config) {
        const providers = config.providers as Record<string, object>;
        providers['huge-oa'] = { type: 'openai', baseURL: `${upstream.url}/v1` };
        providers['huge-an'] = { type: 'anthropic', baseURL: upstream.url };
        providers['huge-br'] = { type: 'bedrock', region: 'us-east-1', endpoint: upstream.url };
        config.models['huge-oa'] = { provider: 'huge-oa', model: 'huge-model' };
        config.models['huge-an'] = { provider: 'huge-an', model: 'huge-model' };
        config.models['huge-br'] = { provider: 'huge-br', model: 'huge-model' };
      },
    },
  );
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.sent.length = 0;
  h.ledger.length = 0;
});

interface BreakerRow {
  model: string;
  windowFailures: number;
}

async function windowFailures(pipeline: string, model: string): Promise<number | undefined> {
  const { data } = (await (await fetch(`${h.url}/v1/breakers?pipeline=${pipeline}`)).json()) as {
    data: BreakerRow[];
  };
  return data.find((b) => b.model === model)?.windowFailures;
}

/** The oversized answer closed early by the gateway, short of its 100 MB. */
async function expectCutShort(): Promise<void> {
  await upstream.settled();
  expect(upstream.sent).toHaveLength(1);
  expect(upstream.sent[0]).toMatchObject({ total: MB100, finished: false, closedEarly: true });
  expect(upstream.sent[0]?.written).toBeLessThan(MB100 / 2);
}

const ROUTES = [
  ['openai-compatible', 'openai', 'huge-oa'],
  ['anthropic', 'anthropic', 'huge-an'],
  ['bedrock', 'bedrock', 'huge-br'],
] as const;

describe.each(ROUTES)('bounded upstream reads through the gateway: %s', (_family, pipeline, route) => {
  it.each([
    ['a 100 MB JSON answer', { shape: 'json', bytes: MB100 }],
    ['a 100 MB answer that is not JSON', { shape: 'text', bytes: MB100 }],
    ['a 100 MB error body', { shape: 'json', bytes: MB100, status: 503 }],
  ] as const)(
    'cuts %s as malformed_response, counts it, and the next route answers',
    async (_name, answer) => {
      next = answer;
      const before = (await windowFailures(pipeline, route)) ?? 0;
      const res = await h.post({ model: pipeline, ...HELLO });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe(`${route}:malformed_response,a:200`);
      const attempts = h.attempts() as AttemptLedgerEntry[];
      expect(attempts.map((a) => [a.model, a.outcome])).toStrictEqual([
        [route, 'malformed_response'],
        ['a', 'ok'],
      ]);
      expect(await windowFailures(pipeline, route)).toBe(before + 1);
      await expectCutShort();
    },
  );

  it('cuts one 100 MB stream event as malformed_response before the stream commits, and the next route streams', async () => {
    next = { shape: route === 'huge-br' ? 'event-stream' : 'sse-line', bytes: MB100 };
    const res = await h.post({ model: pipeline, stream: true, ...HELLO });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('data: [DONE]');
    expect(res.headers.get('x-switchyard-route')).toBe(`${route}:malformed_response,a:200`);
    const attempts = h.attempts() as AttemptLedgerEntry[];
    expect(attempts.map((a) => [a.model, a.outcome])).toStrictEqual([
      [route, 'malformed_response'],
      ['a', 'ok'],
    ]);
    await expectCutShort();
  });
});
