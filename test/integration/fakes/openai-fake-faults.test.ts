import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { MESSAGES, MODEL, useFakeOpenAIClient } from '../../helpers/fake-openai-client.js';

const openai = useFakeOpenAIClient();

describe('OpenAI fake: scripted failures', () => {
  it('answers a 429 with Retry-After in the OpenAI error envelope', async () => {
    openai.fake.script(MODEL, [{ status: 429, retryAfter: 7 }]);
    const err = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    if (!(err instanceof OpenAI.APIError)) throw err;
    expect(err.status).toBe(429);
    expect(err.headers?.get('retry-after')).toBe('7');
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.error).toMatchObject({ type: 'requests', param: null });
    expect(openai.fake.requests[0]?.answeredStatus).toBe(429);
  });

  it('answers a context-length 400 with the OpenAI code and param', async () => {
    openai.fake.script(MODEL, [{ status: 400, errorCode: 'context_length_exceeded' }]);
    const err = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    if (!(err instanceof OpenAI.APIError)) throw err;
    expect(err.code).toBe('context_length_exceeded');
    expect(err.param).toBe('messages');
    expect(err.message).toContain('maximum context length');
  });

  it.each([
    [401, OpenAI.AuthenticationError],
    [404, OpenAI.NotFoundError],
    [500, OpenAI.InternalServerError],
    [503, OpenAI.InternalServerError],
  ])('answers status %i so the client raises the matching error class', async (status, cls) => {
    openai.fake.script(MODEL, [{ status, errorMessage: 'scripted failure' }]);
    const err = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    expect((err as Error).message).toContain('scripted failure');
  });

  it('resets the connection before headers (APIConnectionError, nothing answered)', async () => {
    openai.fake.script(MODEL, [{ reset: true }]);
    const err = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(openai.fake.requests[0]).toMatchObject({ answeredStatus: null, aborted: false });
  });

  it('hangs until the client times out, and logs the request as aborted', async () => {
    openai.fake.script(MODEL, [{ hang: true }]);
    const err = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES }, { timeout: 200 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await vi.waitFor(() => expect(openai.fake.requests[0]?.aborted).toBe(true));
    expect(openai.fake.requests[0]?.answeredStatus).toBeNull();
  });

  it.each([false, true])(
    'sends the headers at once and holds the body with bodyDelayMs (stream: %s)',
    async (stream) => {
      openai.fake.script(MODEL, [{ bodyDelayMs: 60_000 }]);
      const controller = new AbortController();
      const res = await fetch(`${openai.fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(openai.fake.requests[0]?.answeredStatus).toBe(200);
      const body = res.text().catch((e: unknown) => e);
      controller.abort();
      expect(await body).toBeInstanceOf(Error);
      await vi.waitFor(() => expect(openai.fake.requests[0]?.aborted).toBe(true));
    },
  );

  it('logs a request as aborted when the caller cancels during the latency before headers', async () => {
    openai.fake.script(MODEL, [{ latencyMs: 60_000 }]);
    const controller = new AbortController();
    const pending = openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES }, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(openai.fake.requests).toHaveLength(1));
    expect(openai.fake.requests[0]).toMatchObject({ aborted: false, answeredStatus: null });
    controller.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    await vi.waitFor(() => expect(openai.fake.requests[0]?.aborted).toBe(true));
  });

  it('logs a stream as aborted when the caller stops reading mid-stream', async () => {
    openai.fake.script(MODEL, [
      { chunkDelayMs: 50, text: 'one two three four five six seven eight nine ten' },
    ]);
    const controller = new AbortController();
    const stream = await openai.client.chat.completions.create(
      { model: MODEL, messages: MESSAGES, stream: true },
      { signal: controller.signal },
    );
    let seen = 0;
    // openai@6 ends the iteration quietly on a user abort; only the fake's log can tell.
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content && ++seen === 2) controller.abort();
    }
    expect(seen).toBe(2);
    await vi.waitFor(() => expect(openai.fake.requests[0]?.aborted).toBe(true));
    expect(openai.fake.requests[0]?.answeredStatus).toBe(200);
  });

  it('cuts a stream after N content chunks: the iteration throws after them', async () => {
    openai.fake.script(MODEL, [{ cutAfterChunks: 2 }]);
    const stream = await openai.client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      stream: true,
    });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(received.join('')).toBe('Hello from');
    expect(received.filter(Boolean)).toHaveLength(2);
    expect(openai.fake.requests[0]).toMatchObject({ answeredStatus: 200, aborted: false });
  });

  it('sends an in-stream error event after N chunks when a status is scripted with the cut', async () => {
    openai.fake.script(MODEL, [{ cutAfterChunks: 1, status: 429, errorMessage: 'slow down mid-stream' }]);
    const stream = await openai.client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      stream: true,
    });
    const received: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('slow down mid-stream');
    expect(received.join('')).toBe('Hello');
  });

  it('sends half a JSON body then resets for a cut non-streaming request', async () => {
    openai.fake.script(MODEL, [{ cutAfterChunks: 0 }]);
    await expect(
      openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES }),
    ).rejects.toThrow();
    expect(openai.fake.requests[0]?.answeredStatus).toBe(200);
  });

  it('answers 200 with an unparseable body', async () => {
    openai.fake.script(MODEL, [{ malformed: true }]);
    await expect(
      openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES }),
    ).rejects.toThrow();
  });

  it('answers 200 with a schema-invalid body that the client passes through', async () => {
    openai.fake.script(MODEL, [{ malformed: 'schema' }]);
    const data = await openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    expect(data.choices).toBeNull();
  });

  it('streams an unparseable event for a malformed stream (the iteration throws a SyntaxError)', async () => {
    openai.fake.script(MODEL, [{ malformed: 'unparseable' }]);
    // The client logs the bad SSE data at error level; keep the test output clean.
    const quiet = new OpenAI({ baseURL: openai.fake.url, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
    const stream = await quiet.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    const err = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SyntaxError);
  });
});
