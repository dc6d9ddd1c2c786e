/**
 * The read bounds sit exactly where they are configured, on every family, over real HTTP: an
 * answer of exactly `maxUpstreamBodyBytes` (a stream whose largest event is exactly
 * `maxUpstreamEventBytes`) is read, one byte less of bound fails it as `malformed_response`.
 * The answers are the fakes' own bodies, served as fixed bytes so their size is known.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import { messageBody, streamEvents } from '../../../lambda/dev/fakes/anthropic-responses.js';
import { converseBody, converseStreamFrames } from '../../../lambda/dev/fakes/bedrock-responses.js';
import { type AnswerPlan, planAnswer } from '../../../lambda/dev/fakes/fake-answer.js';
import { completionBody, streamFrames } from '../../../lambda/dev/fakes/openai-responses.js';
import { createAnthropicChatModel } from '../../../lambda/families/anthropic/anthropic-chat-model.js';
import { createBedrockChatModel } from '../../../lambda/families/bedrock/bedrock-chat-model.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { type AnswerLimits, DEFAULT_ANSWER_LIMITS } from '../../../lambda/families/shared/answer-limits.js';
import { callOptions, drain, providerErrorOf, streamErrorOf, textOf } from './harness.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
const plan: AnswerPlan = planAnswer({
  model: 'm',
  fault: {},
  seq: 0,
  promptChars: 9,
  stop: undefined,
  toolsOffered: false,
  toolIdPrefix: 'call_',
});
const ANSWER = plan.text;

/** The fixed answer the server gives next. */
let answer: { contentType: string; body: Buffer; encoding?: string } = {
  contentType: 'text/plain',
  body: Buffer.alloc(0),
};
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': answer.contentType,
        'content-length': answer.body.length,
        ...(answer.encoding ? { 'content-encoding': answer.encoding } : {}),
      });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);

type Family = 'openai-compatible' | 'anthropic' | 'bedrock';

function modelOf(family: Family, limits: AnswerLimits): ChatModel {
  if (family === 'openai-compatible')
    return createOpenAIChatModel({
      key: 'k',
      provider: 'p',
      model: 'm',
      baseURL: `${url}/v1`,
      apiKey: 'sk',
      limits,
    });
  if (family === 'anthropic')
    return createAnthropicChatModel({
      key: 'k',
      provider: 'p',
      model: 'm',
      baseURL: url,
      apiKey: 'sk',
      defaultMaxTokens: 64,
      limits,
    });
  return createBedrockChatModel({
    key: 'k',
    provider: 'p',
    model: 'm',
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake' },
    limits,
  });
}

/** Each family's whole answer, as its fake writes it. */
function wholeAnswer(family: Family): { contentType: string; body: Buffer } {
  const json =
    family === 'openai-compatible'
      ? completionBody({ id: 'chatcmpl-1', created: 1, model: 'm' }, plan)
      : family === 'anthropic'
        ? messageBody({ id: 'msg_1', model: 'm' }, plan, {})
        : converseBody(plan, 1);
  return { contentType: 'application/json', body: Buffer.from(JSON.stringify(json)) };
}

/** Each family's stream, and the size of its largest event as the bound counts it. */
function streamAnswer(family: Family): { contentType: string; body: Buffer; largest: number } {
  if (family === 'bedrock') {
    const frames = converseStreamFrames(plan, 1, {});
    const largest = Math.max(...frames.map((f) => f.length));
    return { contentType: 'application/vnd.amazon.eventstream', body: Buffer.concat(frames), largest };
  }
  const text =
    family === 'openai-compatible'
      ? streamFrames({ id: 'chatcmpl-1', created: 1, model: 'm' }, plan, { includeUsage: true }).join('')
      : streamEvents({ id: 'msg_1', model: 'm' }, plan, {}, {}).join('');
  // An SSE event's size: the bytes of its lines, line ends not counted.
  const events = text.split('\n\n').filter((e) => e !== '');
  const largest = Math.max(...events.map((e) => Buffer.byteLength(e.replaceAll('\n', ''))));
  return { contentType: 'text/event-stream', body: Buffer.from(text), largest };
}

const FAMILIES: Family[] = ['openai-compatible', 'anthropic', 'bedrock'];

describe('bounded reads: the body bound, exactly', () => {
  it.each(FAMILIES)('%s: reads an answer of exactly maxUpstreamBodyBytes', async (family) => {
    answer = wholeAnswer(family);
    const limits = { ...DEFAULT_ANSWER_LIMITS, maxUpstreamBodyBytes: answer.body.length };
    const result = await modelOf(family, limits).generate(REQUEST, callOptions());
    expect(result.content).toBe(ANSWER);
  });

  it.each(FAMILIES)('%s: fails an answer one byte over maxUpstreamBodyBytes', async (family) => {
    answer = wholeAnswer(family);
    const limits = { ...DEFAULT_ANSWER_LIMITS, maxUpstreamBodyBytes: answer.body.length - 1 };
    const error = await providerErrorOf(modelOf(family, limits).generate(REQUEST, callOptions()));
    expect(error.failureClass).toBe('malformed_response');
    expect(error.message).toBe(
      `malformed upstream response: a body over ${answer.body.length - 1} bytes (limits.maxUpstreamBodyBytes)`,
    );
  });
});

describe('bounded reads: the event bound, exactly', () => {
  it.each(FAMILIES)(
    '%s: reads a stream whose largest event is exactly maxUpstreamEventBytes',
    async (family) => {
      const stream = streamAnswer(family);
      answer = stream;
      const limits = { ...DEFAULT_ANSWER_LIMITS, maxUpstreamEventBytes: stream.largest };
      const { events, error } = await drain(modelOf(family, limits).stream(REQUEST, callOptions()));
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe(ANSWER);
    },
  );

  it.each(FAMILIES)('%s: fails a stream whose largest event is one byte over', async (family) => {
    const stream = streamAnswer(family);
    answer = stream;
    const limits = { ...DEFAULT_ANSWER_LIMITS, maxUpstreamEventBytes: stream.largest - 1 };
    const { error } = await streamErrorOf(modelOf(family, limits).stream(REQUEST, callOptions()));
    expect(error.failureClass).toBe('malformed_response');
    expect(error.message).toBe(
      `malformed upstream response: a stream event over ${stream.largest - 1} bytes (limits.maxUpstreamEventBytes)`,
    );
  });

  it.each(FAMILIES)('%s: does not bound the stream as a whole by the body bound', async (family) => {
    const stream = streamAnswer(family);
    answer = stream;
    const limits = { maxUpstreamBodyBytes: 1, maxUpstreamEventBytes: stream.largest };
    const { error } = await drain(modelOf(family, limits).stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
  });
});

describe('bounded reads: a plain call answered with a stream', () => {
  it.each(FAMILIES)('%s: bounds the stream whole, by the body bound', async (family) => {
    const stream = streamAnswer(family);
    answer = stream;
    const limits = { maxUpstreamBodyBytes: stream.body.length - 1, maxUpstreamEventBytes: stream.largest };
    const error = await providerErrorOf(modelOf(family, limits).generate(REQUEST, callOptions()));
    expect(error.failureClass).toBe('malformed_response');
    expect(error.message).toContain(`a body over ${stream.body.length - 1} bytes`);
  });
});

describe('bounded reads: a compressed body', () => {
  it('is bounded by what it inflates to, not by what came over the wire', async () => {
    const json = wholeAnswer('openai-compatible').body;
    answer = { contentType: 'application/json', body: gzipSync(json), encoding: 'gzip' };
    expect(answer.body.length).toBeLessThan(json.length);
    const at = (max: number) =>
      modelOf('openai-compatible', { ...DEFAULT_ANSWER_LIMITS, maxUpstreamBodyBytes: max }).generate(
        REQUEST,
        callOptions(),
      );
    expect((await at(json.length)).content).toBe(ANSWER);
    const error = await providerErrorOf(at(json.length - 1));
    expect(error.failureClass).toBe('malformed_response');
  });

  it('cuts a small gzip body that inflates to 64 MB at the default bound', async () => {
    answer = {
      contentType: 'application/json',
      body: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)),
      encoding: 'gzip',
    };
    expect(answer.body.length).toBeLessThan(1024 * 1024);
    const error = await providerErrorOf(
      modelOf('openai-compatible', DEFAULT_ANSWER_LIMITS).generate(REQUEST, callOptions()),
    );
    expect(error.message).toContain('a body over 8388608 bytes');
  });
});
