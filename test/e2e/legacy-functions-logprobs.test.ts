/**
 * Legacy `functions` and `logprobs` on the chat completions door (issue 25 item 3), over real
 * HTTP: functions go upstream as tools and the call comes back as `function_call` (plain and
 * streamed); log probabilities come back from a route that returns them, and a route that cannot
 * is skipped with its trail label.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const LOOKUP = { name: 'lookup', description: 'Look it up', parameters: { type: 'object', properties: {} } };

/** The data objects of an SSE body, `[DONE]` left out. */
async function chunks(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .map((frame) => frame.replace(/^data: /, '').trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data));
}

describe('legacy functions on the chat completions door', () => {
  const ask = { model: 'p', messages: [{ role: 'user', content: 'find x' }], functions: [LOOKUP] };

  it.each([['a'], ['br']])(
    'sends functions as tools to route %s and answers with function_call',
    async (chain) => {
      h = await startGatewayHarness({ p: { chain } });
      const raw = chain === 'a' ? 'model-a' : 'bedrock-model';
      (chain === 'a' ? h.openai : h.bedrock).setDefault(raw, {
        toolCall: { name: 'lookup', arguments: { q: 'x' } },
      });
      const res = await h.post({ ...ask, function_call: { name: 'lookup' } });
      const body = await res.json();
      expect(body.choices[0].message).toEqual({
        role: 'assistant',
        content: null,
        function_call: { name: 'lookup', arguments: '{"q":"x"}' },
        refusal: null,
      });
      expect(body.choices[0].finish_reason).toBe('function_call');
      const received = (chain === 'a' ? h.openai : h.bedrock).requestsFor(raw)[0]?.body as Record<
        string,
        unknown
      >;
      if (chain === 'a') {
        expect(received.tools).toEqual([{ type: 'function', function: LOOKUP }]);
        expect(received.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
        expect(received).not.toHaveProperty('functions');
      } else {
        expect(received.toolConfig).toMatchObject({ toolChoice: { tool: { name: 'lookup' } } });
      }
    },
  );

  it('streams the call as function_call deltas and ends with finish_reason function_call', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { toolCall: { name: 'lookup', arguments: { q: 'x' } } });
    const all = await chunks(await h.post({ ...ask, stream: true }));
    const deltas = all.map(
      (c) => (c.choices as { delta: Record<string, unknown>; finish_reason: string | null }[])[0],
    );
    expect(deltas.some((d) => d && 'tool_calls' in d.delta)).toBe(false);
    const calls = deltas.flatMap((d) =>
      d?.delta.function_call ? [d.delta.function_call as Record<string, string>] : [],
    );
    expect(calls[0]?.name).toBe('lookup');
    expect(calls.map((c) => c.arguments).join('')).toBe('{"q":"x"}');
    expect(deltas.at(-1)?.finish_reason).toBe('function_call');
  });

  it('carries a legacy call and its function result in the history to the upstream as a tool round trip', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    await h.post({
      ...ask,
      messages: [
        { role: 'user', content: 'find x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'x is 42' },
      ],
    });
    const received = h.openai.requestsFor('model-a')[0]?.body as { messages: unknown[] };
    expect(received.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_legacy_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_legacy_1', content: 'x is 42' },
    ]);
  });
});

describe('logprobs on the chat completions door', () => {
  const ask = {
    model: 'p',
    messages: [{ role: 'user', content: 'say hi' }],
    logprobs: true,
    top_logprobs: 2,
  };

  it('carries logprobs to an openai-compatible route and returns them with the answer', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { text: 'Hi there' });
    const answer = await h.client.chat.completions.create({
      ...ask,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    const received = h.openai.requestsFor('model-a')[0]?.body as Record<string, unknown>;
    expect(received).toMatchObject({ logprobs: true, top_logprobs: 2 });
    const content = answer.choices[0]?.logprobs?.content ?? [];
    expect(content.map((t) => t.token).join('')).toBe('Hi there');
    expect(content[0]).toMatchObject({
      logprob: -0.25,
      top_logprobs: [{ logprob: -0.25 }, { token: 'alt1', logprob: -1.25 }],
    });
  });

  it('returns logprobs on each streamed content chunk', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { text: 'Hi there' });
    const stream = await h.client.chat.completions.create({
      ...ask,
      messages: [{ role: 'user', content: 'say hi' }],
      stream: true,
    });
    const tokens: string[] = [];
    for await (const chunk of stream) {
      for (const t of chunk.choices[0]?.logprobs?.content ?? []) tokens.push(t.token);
    }
    expect(tokens.join('')).toBe('Hi there');
  });

  it('keeps logprobs null when the caller did not ask', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const answer = await h.client.chat.completions.create({
      model: 'p',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(answer.choices[0]?.logprobs).toBeNull();
  });

  it('skips routes that return no log probabilities, with their trail label', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a' } }, { anthropic: true });
    const { response } = await h.client.chat.completions
      .create({ ...ask, messages: [{ role: 'user', content: 'x' }] })
      .withResponse();
    expect(response.headers.get('x-switchyard-route')).toBe('!br:unsupported(logprobs),a:200');
    expect(h.received('bedrock-model')).toBe(0);
  });
});
