import { describe, expect, it } from 'vitest';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
} from '../../../lambda/core/chat/chat-model.js';
import { lazyChatModel } from '../../../lambda/families/lazy-chat-model.js';

const request = { messages: [{ role: 'user', content: 'hi' }] } as unknown as ChatRequest;
const options = { signal: new AbortController().signal } as unknown as CallOptions;
const result = { text: 'hello' } as unknown as ChatResult;

/** A loaded adapter that answers `result`, streams two events, counts 7 tokens and embeds nothing. */
const adapter = (): ChatModel => ({
  key: 'k',
  provider: 'p',
  generate: async () => result,
  async *stream() {
    yield { type: 'text', text: 'a' } as never;
    yield { type: 'text', text: 'b' } as never;
  },
  countTokens: async () => 7,
});

/** `load` that counts its calls and fails the first `failures` of them. */
function loader(failures = 0) {
  const loads = { count: 0 };
  const load = async () => {
    loads.count += 1;
    if (loads.count <= failures) throw new Error('chunk failed to load');
    return adapter();
  };
  return { loads, load };
}

describe('lazy chat model', () => {
  it('loads nothing until its first call, then once for every later call', async () => {
    const { loads, load } = loader();
    const model = lazyChatModel({ key: 'k', provider: 'p', countTokens: true }, load);
    expect(loads.count).toBe(0);
    expect(model.key).toBe('k');
    expect(model.provider).toBe('p');
    const [a, b] = await Promise.all([model.generate(request, options), model.generate(request, options)]);
    expect(a).toBe(result);
    expect(b).toBe(result);
    expect(await model.countTokens?.(request, options)).toBe(7);
    expect(loads.count).toBe(1);
  });

  it('streams the loaded adapter’s events in order', async () => {
    const model = lazyChatModel({ key: 'k', provider: 'p' }, loader().load);
    const events = [];
    for await (const event of model.stream(request, options)) events.push(event);
    expect(events).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
  });

  it('has exactly the optional calls its shape declares', () => {
    const plain = lazyChatModel({ key: 'k', provider: 'p' }, loader().load);
    expect(plain.embed).toBeUndefined();
    expect(plain.countTokens).toBeUndefined();
    const counting = lazyChatModel({ key: 'k', provider: 'p', countTokens: true }, loader().load);
    expect(counting.countTokens).toBeTypeOf('function');
    expect(counting.embed).toBeUndefined();
  });

  it('fails the call whose load failed, and loads again on the next call', async () => {
    const { loads, load } = loader(1);
    const model = lazyChatModel({ key: 'k', provider: 'p' }, load);
    await expect(model.generate(request, options)).rejects.toThrow('chunk failed to load');
    await expect(model.generate(request, options)).resolves.toBe(result);
    expect(loads.count).toBe(2);
  });

  it('says which model lacks a call its shape declared', async () => {
    const model = lazyChatModel({ key: 'k', provider: 'p', embed: true }, loader().load);
    await expect(model.embed?.({ input: ['x'] } as never, options)).rejects.toThrow(
      'model k: its adapter has no embed',
    );
  });
});
