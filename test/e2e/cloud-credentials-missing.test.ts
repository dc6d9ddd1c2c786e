/**
 * Missing cloud credentials are this process's configuration, not the upstream's refusal (issue
 * 31, item 3). Without AWS credentials the Bedrock SDK's default provider chain raised
 * `CredentialsProviderError`, classified `upstream_auth`: three requests quarantined the route
 * in the shared breaker and logged an ERROR alert. Now a Bedrock route without credentials, like
 * a Vertex route without its service-account key, is `not_configured`: the next route answers,
 * no breaker item is written, nothing is logged as an alert, the ledger says `not_configured`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../lambda/core/chat/chat-model.js';
import type { LogFields, Logger } from '../../lambda/core/logger.js';
import { startFakeBedrock } from '../../lambda/dev/fakes/bedrock-fake.js';
import { createBedrockChatModel } from '../../lambda/families/bedrock/bedrock-chat-model.js';
import {
  addFakeVertex,
  type GatewayHarness,
  HELLO,
  startGatewayHarness,
} from '../helpers/gateway-harness.js';
import { useNoAwsCredentials } from '../helpers/no-aws-credentials.js';
import { callOptions, providerErrorOf, streamErrorOf } from '../integration/providers/harness.js';

const HELLO_REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

useNoAwsCredentials();

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

/** A logger that keeps every line, by level. */
function recordingLog() {
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

const breakers = async () => (await (await fetch(`${h.url}/v1/breakers`)).json()).data;

/** Three requests through `first,a`: each one served by `a`, `first` never tried twice. */
async function expectServedByNext(first: string) {
  const before = await breakers();
  for (let i = 0; i < 3; i++) {
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('a');
    expect(res.headers.get('x-switchyard-route')).toBe(`${first}:not_configured,a:200`);
  }
  const after = await breakers();
  const local = (list: Array<{ model: string }>) => list.filter((b) => b.model === first);
  expect(local(after)).toEqual(local(before));
  for (const b of local(after))
    expect(b).toMatchObject({ state: 'closed', windowAttempts: 0, windowFailures: 0 });
  const lines = h.attempts().filter((e) => e.type === 'attempt' && e.model === first);
  expect(lines).toHaveLength(3);
  for (const line of lines) expect(line).toMatchObject({ outcome: 'not_configured', phase: 'before_output' });
}

describe('a Bedrock route without AWS credentials', () => {
  it('is not_configured: the next route answers, no breaker item, no alert', async () => {
    const { log, lines } = recordingLog();
    h = await startGatewayHarness({ p: { chain: 'br,a' } }, { sdkCredentials: true, log });
    await expectServedByNext('br');
    expect(h.received('bedrock-model')).toBe(0);
    expect(lines.filter((l) => l.level === 'error' || l.message.startsWith('breaker opened'))).toEqual([]);
  });

  it('spends none of the attempt budget: with maxAttempts 1 the next route still answers', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a', maxAttempts: 1 } }, { sdkCredentials: true });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('br:not_configured,a:200');
    expect(res.headers.get('x-switchyard-attempts')).toBe('2');
  });

  it('answers 503 provider_not_configured when no route is left', async () => {
    h = await startGatewayHarness({ p: { chain: 'br' } }, { sdkCredentials: true });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('provider_not_configured');
    expect(h.attempts()).toEqual([expect.objectContaining({ model: 'br', outcome: 'not_configured' })]);
  });

  it('fails the attempt, plain or streamed, with a message naming the variables and no SDK text', async () => {
    const fake = await startFakeBedrock();
    try {
      const model = createBedrockChatModel({
        key: 'llama-br',
        provider: 'bedrock',
        model: 'bedrock-model',
        region: 'us-east-1',
        endpoint: fake.url,
      });
      const expected = {
        failureClass: 'not_configured',
        message:
          "no AWS credentials found for provider 'bedrock' (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY " +
          'or AWS_PROFILE, or run with an IAM role)',
      };
      expect(await providerErrorOf(model.generate(HELLO_REQUEST, callOptions()))).toMatchObject(expected);
      expect((await streamErrorOf(model.stream(HELLO_REQUEST, callOptions()))).error).toMatchObject(expected);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  it('signs with credentials again as soon as the environment has them, without a restart', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a' } }, { sdkCredentials: true });
    expect((await h.post({ model: 'p', ...HELLO })).headers.get('x-switchyard-model')).toBe('a');
    process.env.AWS_ACCESS_KEY_ID = 'AKIDLATER';
    process.env.AWS_SECRET_ACCESS_KEY = 'later';
    try {
      const res = await h.post({ model: 'p', ...HELLO });
      expect(res.headers.get('x-switchyard-route')).toBe('br:200');
    } finally {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
});

describe('a Vertex route without its service-account key', () => {
  it('is not_configured: the next route answers, no breaker item, no alert', async () => {
    const { log, lines } = recordingLog();
    h = await startGatewayHarness(
      { p: { chain: 'v,a' } },
      {
        log,
        configure: addFakeVertex,
      },
    );
    await expectServedByNext('v');
    expect(h.received('google/gemini-v')).toBe(0);
    expect(lines.filter((l) => l.level === 'error' || l.message.startsWith('breaker opened'))).toEqual([]);
  });
});
