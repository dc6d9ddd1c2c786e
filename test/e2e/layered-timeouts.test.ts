import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
let silent: { server: Server; sockets: Socket[] } | undefined;
afterEach(async () => {
  await h?.close();
  for (const socket of silent?.sockets ?? []) socket.destroy();
  await new Promise((resolve) => (silent ? silent.server.close(resolve) : resolve(undefined)));
  silent = undefined;
});

/** Model `t` (raw id `model-t`): a first byte within 300 ms, a whole answer within 5 s, 1 s of silence after the commit. */
const LIMITS = { timeoutMs: 5_000, timeouts: { connectMs: 200, firstByteMs: 300, idleMs: 1_000 } };

async function harness(model: Record<string, unknown> = { provider: 'fake', model: 'model-t' }) {
  return startGatewayHarness(
    { p: { chain: 't,b' } },
    {
      configure: (config) => {
        config.models.t = { ...model, ...LIMITS };
      },
    },
  );
}

const attemptOf = (model: string) =>
  h.attempts().find((a) => (a as AttemptLedgerEntry).model === model) as AttemptLedgerEntry | undefined;

/** The SSE events of a streamed answer, without the `data: ` prefix. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((e) => e.replace(/^data: /, ''));

/** A TCP server that accepts connections and never says a word: a TLS handshake to it never ends. */
async function silentServer(): Promise<string> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  silent = { server, sockets };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `https://127.0.0.1:${address.port}/v1`;
}

describe('layered timeouts over HTTP (docs/configuration.md#timeouts)', () => {
  it('falls back when the response headers come later than firstByteMs, and the ledger names the phase', async () => {
    h = await harness();
    h.openai.script('model-t', [{ latencyMs: 900 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(res.headers.get('x-switchyard-route')).toBe('t:timeout,b:200');
    expect(attemptOf('t')).toMatchObject({
      outcome: 'timeout',
      timeoutPhase: 'first_byte',
      phase: 'before_output',
    });
  });

  it('keeps a plain answer whose headers came in time though its body takes longer than firstByteMs', async () => {
    h = await harness();
    h.openai.script('model-t', [{ bodyDelayMs: 900, text: 'slow body' }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('t:200');
    expect((await res.json()).choices[0].message.content).toBe('slow body');
  });

  it('falls back before the commit when a stream’s headers are quick but its first content event is late', async () => {
    h = await harness();
    h.openai.script('model-t', [{ bodyDelayMs: 900 }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('t:timeout,b:200');
    expect(await res.text()).toContain('[DONE]');
    expect(attemptOf('t')).toMatchObject({
      outcome: 'timeout',
      timeoutPhase: 'first_byte',
      phase: 'before_output',
    });
  });

  it('does not cut a slow-but-streaming answer: first event in time, a whole longer than firstByteMs', async () => {
    h = await harness();
    h.openai.script('model-t', [{ text: 'one two three four five six', chunkDelayMs: 150 }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.headers.get('x-switchyard-model')).toBe('t');
    const text = await res.text();
    expect(text).toMatch(/"content":" ?six"/);
    expect(eventsOf(text).at(-1)).toBe('[DONE]');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0]).toMatchObject({ reason: 'success', model: 't' });
    expect(h.received('model-b')).toBe(0);
  });

  it('ends a stream silent for longer than idleMs after the commit with the error event, not at timeoutMs', async () => {
    h = await harness();
    h.openai.script('model-t', [{ text: 'one two three four', stallAfterChunks: 2 }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    const text = await res.text();
    expect(text).toContain('"content":"one"');
    const last = JSON.parse(eventsOf(text).at(-1) as string);
    expect(last.error).toMatchObject({ code: 'stream_interrupted' });
    expect(last.error.message).toContain('no output for 1000 ms');
    expect(text).not.toContain('[DONE]');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0] as RequestLedgerEntry).toMatchObject({ reason: 'partial', model: 't' });
    expect(attemptOf('t')).toMatchObject({ outcome: 'timeout', timeoutPhase: 'idle', phase: 'after_output' });
  });

  it('falls back when the connection is not up within connectMs (a TLS handshake nobody answers)', async () => {
    const baseURL = await silentServer();
    h = await startGatewayHarness(
      { p: { chain: 't,b' } },
      {
        configure: (config) => {
          (config.providers as Record<string, unknown>).mute = { type: 'openai', baseURL };
          config.models.t = { provider: 'mute', model: 'model-t', ...LIMITS };
        },
      },
    );
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('t:timeout,b:200');
    expect(attemptOf('t')).toMatchObject({ outcome: 'timeout', timeoutPhase: 'connect' });
    expect(silent?.sockets.length).toBe(1);
  });

  it('Bedrock: reports its response headers as the first byte, and falls back on late headers', async () => {
    h = await harness({ provider: 'br', model: 'bedrock-t' });
    h.bedrock.script('bedrock-t', [{ bodyDelayMs: 900, text: 'slow body' }, { latencyMs: 900 }]);
    const slowBody = await h.post({ model: 'p', ...HELLO });
    expect(slowBody.headers.get('x-switchyard-route')).toBe('t:200');
    expect((await slowBody.json()).choices[0].message.content).toBe('slow body');
    const lateHeaders = await h.post({ model: 'p', ...HELLO });
    expect(lateHeaders.headers.get('x-switchyard-route')).toBe('t:timeout,b:200');
    expect(
      h
        .attempts()
        .filter((a) => (a as AttemptLedgerEntry).model === 't')
        .at(-1),
    ).toMatchObject({
      outcome: 'timeout',
      timeoutPhase: 'first_byte',
    });
  });
});
