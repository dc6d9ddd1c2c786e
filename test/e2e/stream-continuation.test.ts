import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const TEXT = 'one two three four five six';
const SAME_MODEL = { streaming: { afterOutput: 'continue-same-model' } };

/** The data lines of an OpenAI-door stream, `[DONE]` as a string. */
function chunks(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

type Chunk = {
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
  continued?: unknown;
};
const textOf = (events: unknown[]) =>
  events.map((e) => (e as Chunk).choices?.[0]?.delta?.content ?? '').join('');

const lastRequest = () => h.requests().at(-1) as RequestLedgerEntry;

describe('stream continuation after output', () => {
  it.each([
    ['cut', { cutAfterChunks: 2 }],
    ['corrupt event', { malformedAfterChunks: 2 }],
    ['error event', { cutAfterChunks: 2, status: 529 }],
  ])(
    'continue-same-model: after a %s the caller receives the whole text exactly once, labelled',
    async (_, fault) => {
      h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
      h.anthropic.script('claude-model', [{ ...fault, text: TEXT }, { text: TEXT }]);
      const res = await h.post({
        model: 'p',
        stream: true,
        stream_options: { include_usage: true },
        ...HELLO,
      });
      expect(res.status).toBe(200);
      const events = chunks(await res.text());
      expect(textOf(events)).toBe(TEXT);
      expect(events.at(-1)).toBe('[DONE]');
      const finish = events.find((e) => (e as Chunk).choices?.[0]?.finish_reason) as Chunk;
      expect(finish.continued).toEqual({ from: 'an', at_token: 2, by: 'an' });
      // The continuation was asked with the text so far as the assistant's prefill.
      const second = h.anthropic.requestsFor('claude-model')[1];
      expect(second?.messages?.at(-1)).toEqual({ role: 'assistant', text: 'one two' });
      await waitFor(() => h.requests().length === 1);
      expect(lastRequest()).toMatchObject({
        reason: 'success',
        model: 'an',
        route: 'an:cut@2,an:continued',
        continued: { from: 'an', atToken: 2, by: 'an' },
      });
    },
  );

  it('continue-same-model: a stalled stream is continued after its idle limit', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'an', ...SAME_MODEL } },
      {
        anthropic: true,
        configure: (c) => Object.assign(c.models.an as object, { timeouts: { idleMs: 300 } }),
      },
    );
    h.anthropic.script('claude-model', [{ stallAfterChunks: 3, text: TEXT }, { text: TEXT }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    const events = chunks(await res.text());
    expect(textOf(events)).toBe(TEXT);
    await waitFor(() => h.requests().length === 1);
    // 'one two three' (13 characters) reached the caller: 4 tokens at 4 characters a token.
    expect(lastRequest().route).toBe('an:cut@4,an:continued');
    expect((h.attempts()[0] as AttemptLedgerEntry).timeoutPhase).toBe('idle');
  });

  it('drops the words a continuation writes again at the seam', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [
      { cutAfterChunks: 3, text: TEXT },
      { text: TEXT, prefillEchoWords: 1 },
    ]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(textOf(chunks(await res.text()))).toBe(TEXT);
  });

  it('continue: a fallback that takes no prefill is never called, and the caller gets the original error', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'an,a', streaming: { afterOutput: 'continue' } } },
      { anthropic: true },
    );
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { status: 503 }]);
    h.openai.setDefault('model-a', { status: 400, errorMessage: 'prefill not supported' });
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    const body = await res.text();
    const last = chunks(body).at(-1) as { error: { code: string; message: string } };
    expect(last.error.code).toBe('stream_interrupted');
    expect(last.error.message).not.toContain('prefill not supported');
    expect(body).not.toContain('[DONE]');
    expect(h.received('model-a')).toBe(0);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({
      reason: 'partial',
      failureClass: 'network',
      route: 'an:cut@2,!a:prefill,an:503',
    });
  });

  it('continue: when the model cannot continue, a later model that takes a prefill does', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'an,a,claudeBr', streaming: { afterOutput: 'continue' }, maxAttempts: 4 } },
      {
        anthropic: true,
        configure: (c) => {
          c.models.claudeBr = { provider: 'br', model: 'anthropic.claude-fake-v1:0' };
        },
      },
    );
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { status: 529 }]);
    h.bedrock.script('anthropic.claude-fake-v1:0', [{ text: TEXT }]);
    const events = chunks(await (await h.post({ model: 'p', stream: true, ...HELLO })).text());
    expect(textOf(events)).toBe(TEXT);
    const finish = events.find((e) => (e as Chunk).choices?.[0]?.finish_reason) as Chunk;
    expect(finish.continued).toEqual({ from: 'an', at_token: 2, by: 'claudeBr' });
    expect(h.received('model-a')).toBe(0);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest().route).toBe('an:cut@2,!a:prefill,an:529,claudeBr:continued');
    expect(h.attempts().at(-1) as AttemptLedgerEntry).toMatchObject({
      action: 'fallback',
      step: 'substitute',
    });
  });

  it('continue: the route out of its declared quota is skipped at once, labelled, and a later model continues', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'an,a,claudeBr', streaming: { afterOutput: 'continue' }, maxAttempts: 4 } },
      {
        anthropic: true,
        configure: (c) => {
          c.models.claudeBr = { provider: 'br', model: 'anthropic.claude-fake-v1:0' };
          // One request a minute on the Anthropic account route: the cut attempt spends it.
          c.capacity = { quotas: { an: { 'claude-model': { requestsPerMinute: 1 } } } };
        },
      },
    );
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { text: TEXT }]);
    h.bedrock.script('anthropic.claude-fake-v1:0', [{ text: TEXT }]);
    const events = chunks(await (await h.post({ model: 'p', stream: true, ...HELLO })).text());
    expect(textOf(events)).toBe(TEXT);
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({
      reason: 'success',
      route: 'an:cut@2,!a:prefill,!an:quota,claudeBr:continued',
      continued: { from: 'an', atToken: 2, by: 'claudeBr' },
    });
    expect((h.attempts().at(-1) as AttemptLedgerEntry).skipped).toEqual([
      expect.objectContaining({ route: 'an', reason: 'quota' }),
    ]);
  });

  it('a request that asked for reasoning is never continued: the caller gets the original error', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { text: TEXT }]);
    const res = await h.post({
      model: 'p',
      stream: true,
      reasoning_effort: 'low',
      max_tokens: 4000,
      ...HELLO,
    });
    const body = await res.text();
    const last = chunks(body).at(-1) as { error: { code: string } };
    expect(last.error.code).toBe('stream_interrupted');
    expect(body).not.toContain('[DONE]');
    // The request went up with thinking on, once: no prefill was ever asked for.
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial', failureClass: 'network', route: 'an:network' });
  });

  it('spends from the attempt budget: with none left the caller gets the original error', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL, maxAttempts: 1 } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { text: TEXT }]);
    const last = chunks(await (await h.post({ model: 'p', stream: true, ...HELLO })).text()).at(-1);
    expect((last as { error: { code: string } }).error.code).toBe('stream_interrupted');
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial', route: 'an:cut@2' });
  });

  it('starts no continuation once the request’s deadline has passed', async () => {
    // Frames 400 ms apart: the first text (the 4th frame) commits at about 1.2 s, the cut after
    // the 4th text comes at about 2.4 s, past the 2 s deadline (wide margins for a busy machine).
    h = await startGatewayHarness(
      { p: { chain: 'an', ...SAME_MODEL, deadlineMs: 2_000 } },
      { anthropic: true },
    );
    h.anthropic.script('claude-model', [
      { cutAfterChunks: 4, chunkDelayMs: 400, text: TEXT },
      { text: TEXT },
    ]);
    const last = chunks(await (await h.post({ model: 'p', stream: true, ...HELLO })).text()).at(-1);
    expect((last as { error: { code: string } }).error.code).toBe('stream_interrupted');
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial' });
  });

  it('the Messages door labels a continued stream on its message_delta', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { text: TEXT }]);
    const res = await h.postMessages({ model: 'p', max_tokens: 100, stream: true, ...HELLO });
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.split('\ndata: ')[1] as string) as Record<string, unknown>);
    const text = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { text: string }).text)
      .join('');
    expect(text).toBe(TEXT);
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta?.continued).toEqual({ from: 'an', at_token: 2, by: 'an' });
    expect(events.at(-1)?.type).toBe('message_stop');
  });

  it('a route that refuses the prefill with a 400 never masks the original error', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [
      { cutAfterChunks: 2, text: TEXT },
      { status: 400, errorMessage: 'assistant prefill is not supported here' },
    ]);
    const body = await (await h.post({ model: 'p', stream: true, ...HELLO })).text();
    const last = chunks(body).at(-1) as { error: { code: string; message: string } };
    expect(last.error.code).toBe('stream_interrupted');
    expect(last.error.message).not.toContain('prefill');
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({
      reason: 'partial',
      failureClass: 'network',
      route: 'an:cut@2,an:400',
    });
  });

  it('a tool-call stream that breaks stays an explicit partial, never continued', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [
      { cutAfterChunks: 1, toolCall: { name: 'lookup', arguments: { city: 'Lisbon', days: 3 } } },
    ]);
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const res = await h.post({ model: 'p', stream: true, tools, ...HELLO });
    const last = chunks(await res.text()).at(-1) as { error: { code: string } };
    expect(last.error.code).toBe('stream_interrupted');
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial', route: 'an:network' });
  });

  it('bills the broken attempt and the continuation on their own lines', async () => {
    h = await startGatewayHarness({ p: { chain: 'an', ...SAME_MODEL } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }, { text: TEXT }]);
    await (await h.post({ model: 'p', stream: true, ...HELLO })).text();
    await waitFor(() => h.requests().length === 1);
    const [cut, continued] = h.attempts() as AttemptLedgerEntry[];
    // The Anthropic fake reports the prompt at message_start: 'hello there' is 3 tokens.
    expect(cut).toMatchObject({ outcome: 'network', phase: 'after_output', usageEstimated: true });
    expect(cut?.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
    expect(continued).toMatchObject({
      outcome: 'ok',
      action: 'retry',
      continuation: { from: 'an', atToken: 2 },
    });
    expect(continued?.usage?.outputTokens).toBeGreaterThan(0);
    expect(continued?.usageEstimated).toBeUndefined();
    const total = (cut?.costUsd ?? 0) + (continued?.costUsd ?? 0);
    expect(lastRequest().costUsd).toBeCloseTo(total, 12);
    expect(total).toBeGreaterThan(0);
  });

  it('the error policy keeps today: the stream ends with stream_interrupted and nothing is continued', async () => {
    h = await startGatewayHarness({ p: { chain: 'an' } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ cutAfterChunks: 2, text: TEXT }]);
    const last = chunks(await (await h.post({ model: 'p', stream: true, ...HELLO })).text()).at(-1);
    expect((last as { error: { code: string } }).error.code).toBe('stream_interrupted');
    expect(h.anthropic.requestsFor('claude-model')).toHaveLength(1);
  });
});
