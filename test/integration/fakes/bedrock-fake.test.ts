import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  ConverseStreamCommand,
  type ConverseStreamOutput,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeBedrock } from '../../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';

const MODEL = 'meta.llama3-3-70b-instruct-v1:0';
// 'Be brief.' + 'Say hello' = 18 chars -> ceil(18 / 4) = 5 input tokens (same as the OpenAI fake).
const INPUT: ConverseCommandInput = {
  modelId: MODEL,
  system: [{ text: 'Be brief.' }],
  messages: [{ role: 'user', content: [{ text: 'Say hello' }] }],
};
const TOOL_CONFIG = { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }] };
// 'Hello from meta.llama3-3-70b-instruct-v1:0.' is 43 chars -> 11 tokens.
const ANSWER = `Hello from ${MODEL}.`;

type AwsError = Error & { $metadata?: { httpStatusCode?: number }; code?: string };

let fake: FakeUpstream;
let client: BedrockRuntimeClient;

beforeAll(async () => {
  fake = await startFakeBedrock();
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: fake.url,
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
});
afterAll(async () => {
  client.destroy();
  await fake.close();
});
beforeEach(() => fake.reset());

async function events(input: ConverseCommandInput = INPUT): Promise<ConverseStreamOutput[]> {
  const response = await client.send(new ConverseStreamCommand(input));
  const out: ConverseStreamOutput[] = [];
  for await (const event of response.stream ?? []) out.push(event);
  return out;
}

function failure(promise: Promise<unknown>): Promise<AwsError> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as AwsError,
  );
}

describe('Bedrock fake: Converse', () => {
  it('answers Converse with text, stop reason, usage and metrics, and decodes the model id', async () => {
    const response = await client.send(new ConverseCommand(INPUT));
    expect(response.output).toEqual({ message: { role: 'assistant', content: [{ text: ANSWER }] } });
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 11, totalTokens: 16 });
    expect(typeof response.metrics?.latencyMs).toBe('number');
    expect(response.$metadata.requestId).toBe('fake-0');
    expect(fake.requestsFor(MODEL)).toEqual([
      expect.objectContaining({ model: MODEL, stream: false, aborted: false, answeredStatus: 200 }),
    ]);
  });

  it('truncates at inferenceConfig.maxTokens with stopReason max_tokens', async () => {
    const response = await client.send(new ConverseCommand({ ...INPUT, inferenceConfig: { maxTokens: 2 } }));
    expect(response.output?.message?.content).toEqual([{ text: 'Hello fr' }]);
    expect(response.stopReason).toBe('max_tokens');
    expect(response.usage?.outputTokens).toBe(2);
  });

  it('stops before a stop sequence with stopReason stop_sequence', async () => {
    const response = await client.send(
      new ConverseCommand({ ...INPUT, inferenceConfig: { stopSequences: [' from'] } }),
    );
    expect(response.output?.message?.content).toEqual([{ text: 'Hello' }]);
    expect(response.stopReason).toBe('stop_sequence');
  });

  it.each([
    ['content_filter', 'content_filtered'],
    ['guardrail', 'guardrail_intervened'],
  ] as const)('maps finishReason %s to stopReason %s', async (finishReason, stopReason) => {
    fake.script(MODEL, [{ finishReason, text: '' }]);
    const response = await client.send(new ConverseCommand(INPUT));
    expect(response.stopReason).toBe(stopReason);
  });

  it('answers with a toolUse block when the request offers tools', async () => {
    fake.script(MODEL, [{ toolCall: { name: 'lookup', arguments: { city: 'Paris' } } }]);
    const response = await client.send(new ConverseCommand({ ...INPUT, toolConfig: TOOL_CONFIG }));
    expect(response.stopReason).toBe('tool_use');
    const block = response.output?.message?.content?.[0];
    expect(block?.toolUse).toMatchObject({ name: 'lookup', input: { city: 'Paris' } });
    expect(block?.toolUse?.toolUseId).toMatch(/^tooluse_/);
  });
});

describe('Bedrock fake: ConverseStream', () => {
  it('streams messageStart, text deltas, contentBlockStop, messageStop and metadata', async () => {
    const out = await events();
    expect(out.map((e) => Object.keys(e)[0])).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(out.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('')).toBe(ANSWER);
    expect(out[5]?.messageStop?.stopReason).toBe('end_turn');
    expect(out[6]?.metadata?.usage).toEqual({ inputTokens: 5, outputTokens: 11, totalTokens: 16 });
    expect(fake.requests[0]).toMatchObject({ stream: true, answeredStatus: 200 });
  });

  it('streams a tool call as contentBlockStart plus toolUse input deltas', async () => {
    fake.script(MODEL, [{ toolCall: { name: 'lookup', arguments: { city: 'Paris', days: 3 } } }]);
    const out = await events({ ...INPUT, toolConfig: TOOL_CONFIG });
    expect(out[1]?.contentBlockStart?.start?.toolUse?.name).toBe('lookup');
    const input = out.map((e) => e.contentBlockDelta?.delta?.toolUse?.input ?? '').join('');
    expect(JSON.parse(input)).toEqual({ city: 'Paris', days: 3 });
    expect(out.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('tool_use');
  });

  it('cuts the stream after 2 deltas: the iteration throws after them', async () => {
    fake.script(MODEL, [{ cutAfterChunks: 2 }]);
    const response = await client.send(new ConverseStreamCommand(INPUT));
    const texts: string[] = [];
    const err = await failure(
      (async () => {
        for await (const event of response.stream ?? []) {
          if (event.contentBlockDelta?.delta?.text) texts.push(event.contentBlockDelta.delta.text);
        }
      })(),
    );
    expect(err).toBeInstanceOf(Error);
    expect(texts).toEqual(['Hello', ' from']);
    expect(fake.requests[0]).toMatchObject({ answeredStatus: 200, aborted: false });
  });

  it('sends a throttlingException event mid-stream when a status is scripted with the cut', async () => {
    fake.script(MODEL, [{ cutAfterChunks: 1, status: 429 }]);
    const response = await client.send(new ConverseStreamCommand(INPUT));
    const err = await failure(
      (async () => {
        for await (const _event of response.stream ?? []) {
          // drain until the exception event
        }
      })(),
    );
    expect(err).toBeInstanceOf(ThrottlingException);
  });

  it('answers a throttled ConverseStream before any event', async () => {
    fake.script(MODEL, [{ status: 429 }]);
    const err = await failure(client.send(new ConverseStreamCommand(INPUT)));
    expect(err.name).toBe('ThrottlingException');
    expect(err.$metadata?.httpStatusCode).toBe(429);
  });
});

describe('Bedrock fake: errors', () => {
  it('answers a ThrottlingException the real client recognises', async () => {
    fake.script(MODEL, [{ status: 429, retryAfter: 3 }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    expect(err).toBeInstanceOf(ThrottlingException);
    expect(err.name).toBe('ThrottlingException');
    expect(err.$metadata?.httpStatusCode).toBe(429);
    expect(fake.requests[0]?.answeredStatus).toBe(429);
  });

  it('answers a ValidationException with the scripted message (e.g. context length)', async () => {
    fake.script(MODEL, [{ status: 400, errorMessage: 'Input is too long for requested model.' }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    expect(err).toBeInstanceOf(ValidationException);
    expect(err.message).toBe('Input is too long for requested model.');
    expect(err.$metadata?.httpStatusCode).toBe(400);
  });

  it.each([
    [503, 'ServiceUnavailableException'],
    [500, 'InternalServerException'],
    [403, 'AccessDeniedException'],
    [404, 'ResourceNotFoundException'],
    [408, 'ModelTimeoutException'],
    [424, 'ModelErrorException'],
    [502, 'InternalServerException'],
  ])('maps status %i to %s', async (status, name) => {
    fake.script(MODEL, [{ status }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    expect(err.name).toBe(name);
    expect(err.$metadata?.httpStatusCode).toBe(status);
  });

  it('uses errorCode as the exception name', async () => {
    fake.script(MODEL, [{ status: 429, errorCode: 'ModelNotReadyException' }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    expect(err.name).toBe('ModelNotReadyException');
    expect(err.$metadata?.httpStatusCode).toBe(429);
  });

  it('resets the connection before headers', async () => {
    fake.script(MODEL, [{ reset: true }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    // The Node handler reports a reset as `TimeoutError` / ECONNRESET, with no HTTP status.
    expect(err.code).toBe('ECONNRESET');
    expect(err.$metadata?.httpStatusCode).toBeUndefined();
    expect(fake.requests[0]?.answeredStatus).toBeNull();
  });

  it('answers 200 with an unparseable body (a deserialization error)', async () => {
    fake.script(MODEL, [{ malformed: true }]);
    const err = await failure(client.send(new ConverseCommand(INPUT)));
    expect(err.message).toContain('Deserialization error');
    expect(err.$metadata?.httpStatusCode).toBe(200);
  });

  it('answers 200 with a schema-invalid body that the client passes through', async () => {
    fake.script(MODEL, [{ malformed: 'schema' }]);
    const response = await client.send(new ConverseCommand(INPUT));
    expect(response.output?.message).toBeUndefined();
  });

  it('streams an event whose payload is not JSON for a malformed stream', async () => {
    fake.script(MODEL, [{ malformed: true }]);
    await expect(events()).rejects.toThrow(SyntaxError);
  });

  it('hangs until the caller aborts, and logs the request as aborted', async () => {
    fake.script(MODEL, [{ hang: true }]);
    const controller = new AbortController();
    const pending = failure(client.send(new ConverseCommand(INPUT), { abortSignal: controller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    controller.abort();
    expect((await pending).name).toBe('AbortError');
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
    expect(fake.requests[0]?.answeredStatus).toBeNull();
  });

  it('answers a ValidationException to a body without messages, logging nothing', async () => {
    const res = await fetch(`${fake.url}/model/${encodeURIComponent(MODEL)}/converse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-amzn-errortype')).toBe('ValidationException');
    expect(((await res.json()) as { message: string }).message).toContain('messages');
    expect(fake.requests).toHaveLength(0);
  });
});
