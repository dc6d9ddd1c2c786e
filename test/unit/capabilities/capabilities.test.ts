import { describe, expect, it } from 'vitest';
import {
  CAPABILITIES,
  type Capabilities,
  capabilityOverridesSchema,
  withOverrides,
} from '../../../lambda/core/capabilities/capability.js';
import { needsOf } from '../../../lambda/core/capabilities/request-needs.js';
import { missingCapabilities, unsupportedLabel } from '../../../lambda/core/capabilities/route-fit.js';
import type { ChatMessage, ChatRequest, ContentPart } from '../../../lambda/core/chat/chat-model.js';

const img = (kind: 'url' | 'data'): ContentPart => ({
  type: 'image',
  source:
    kind === 'url' ? { kind, url: 'https://x.test/a.png' } : { kind, mediaType: 'image/png', data: 'AA==' },
});
const doc = (kind: 'url' | 'data'): ContentPart => ({
  type: 'document',
  source:
    kind === 'url'
      ? { kind, url: 'https://x.test/a.pdf' }
      : { kind, mediaType: 'application/pdf', data: 'AA==' },
});
const ask = (...messages: ChatMessage[]): ChatRequest => ({ messages });
const all = (value: boolean): Capabilities =>
  Object.fromEntries(CAPABILITIES.map((c) => [c, value])) as Capabilities;

describe('what a request needs', () => {
  it.each<[string, ChatRequest, string[]]>([
    ['nothing for plain text', ask({ role: 'user', content: 'hi' }), []],
    ['nothing for text parts', ask({ role: 'user', content: [{ type: 'text', text: 'hi' }] }), []],
    ['images for an inline image', ask({ role: 'user', content: [img('data')] }), ['images']],
    [
      'images and imageUrls for an image by URL',
      ask({ role: 'user', content: [img('url')] }),
      ['images', 'imageUrls'],
    ],
    ['documents for an inline PDF', ask({ role: 'user', content: [doc('data')] }), ['documents']],
    [
      'documents and documentUrls for a PDF by URL',
      ask({ role: 'user', content: [doc('url')] }),
      ['documents', 'documentUrls'],
    ],
    [
      'tools and toolResultMedia for an image in a tool result',
      ask({ role: 'tool', toolCallId: 'c', content: [img('data')] }),
      ['images', 'toolResultMedia', 'tools'],
    ],
    ['tools for a text tool result', ask({ role: 'tool', toolCallId: 'c', content: 'ok' }), ['tools']],
    [
      'tools for an assistant tool call in the history',
      ask(
        { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] },
        { role: 'user', content: 'go' },
      ),
      ['tools'],
    ],
    [
      'tools for tool definitions',
      { ...ask({ role: 'user', content: 'x' }), tools: [{ name: 'f' }] },
      ['tools'],
    ],
    ['nothing for an empty tool list', { ...ask({ role: 'user', content: 'x' }), tools: [] }, []],
    [
      'logprobs when asked (even with no alternatives)',
      { ...ask({ role: 'user', content: 'x' }), logprobs: { top: 0 } },
      ['logprobs'],
    ],
    [
      'reasoning when asked for an effort',
      { ...ask({ role: 'user', content: 'x' }), reasoning: { effort: 'low' } },
      ['reasoning'],
    ],
    [
      'reasoning when asked for a budget only',
      { ...ask({ role: 'user', content: 'x' }), reasoning: { budgetTokens: 1024 } },
      ['reasoning'],
    ],
    [
      'prefill for a trailing assistant text',
      ask({ role: 'user', content: 'x' }, { role: 'assistant', content: 'Sure,' }),
      ['prefill'],
    ],
    [
      'no prefill for a trailing empty assistant message',
      ask({ role: 'user', content: 'x' }, { role: 'assistant', content: '' }),
      [],
    ],
    [
      'no prefill for an assistant message before the last',
      ask({ role: 'assistant', content: 'Hi' }, { role: 'user', content: 'x' }),
      [],
    ],
  ])('needs %s', (_, request, needs) => {
    expect(needsOf(request)).toEqual(needs);
  });

  it('lists each need once, in capability order', () => {
    const request = ask({ role: 'user', content: [doc('url'), img('url'), img('data'), doc('data')] });
    expect(needsOf(request)).toEqual(['images', 'imageUrls', 'documents', 'documentUrls']);
  });
});

describe('whether a route can carry a request', () => {
  it('names the needs a route lacks, in the order needed', () => {
    const route = { ...all(true), images: false, tools: false };
    expect(missingCapabilities(['images', 'logprobs', 'tools'], route)).toEqual(['images', 'tools']);
    expect(missingCapabilities(['logprobs'], route)).toEqual([]);
  });

  it('counts a route without declared capabilities as carrying everything', () => {
    expect(missingCapabilities(['images', 'prefill'], undefined)).toEqual([]);
  });

  it('labels a skip with + between capabilities (the trail separates entries with ,)', () => {
    expect(unsupportedLabel(['images', 'tools'])).toBe('unsupported(images+tools)');
    expect(unsupportedLabel(['logprobs'])).toBe('unsupported(logprobs)');
  });
});

describe('a model overriding its family capabilities', () => {
  it('replaces only the values it sets', () => {
    const merged = withOverrides(all(true), { images: false, tools: undefined });
    expect(merged).toEqual({ ...all(true), images: false });
    expect(withOverrides(all(false), undefined)).toEqual(all(false));
  });

  it('accepts known capabilities as booleans and refuses anything else, naming it', () => {
    expect(capabilityOverridesSchema.parse({ prefill: true })).toEqual({ prefill: true });
    const unknown = capabilityOverridesSchema.safeParse({ vision: true });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['vision'] });
    expect(capabilityOverridesSchema.safeParse({ images: 'yes' }).error?.issues[0]?.path).toEqual(['images']);
  });
});

describe('how much an image weighs in the admission estimate', () => {
  it('counts each image as IMAGE_INPUT_CHARS instead of its inline data, and leaves PDFs and text alone', async () => {
    const { IMAGE_INPUT_CHARS, imageCharsAdjustment } = await import(
      '../../../lambda/core/chat/media-demand.js'
    );
    const data = 'A'.repeat(100_000);
    const inline: ContentPart = { type: 'image', source: { kind: 'data', mediaType: 'image/png', data } };
    expect(IMAGE_INPUT_CHARS).toBe(6_400);
    expect(imageCharsAdjustment([{ role: 'user', content: [inline] }])).toBe(6_400 - 100_000);
    expect(imageCharsAdjustment([{ role: 'user', content: [img('url')] }])).toBe(6_400);
    expect(
      imageCharsAdjustment([{ role: 'tool', toolCallId: 'c', content: [img('url'), doc('data')] }]),
    ).toBe(6_400);
    expect(
      imageCharsAdjustment([
        { role: 'user', content: 'plain' },
        { role: 'system', content: 'x' },
      ]),
    ).toBe(0);
  });
});

describe('what a request needs, at the edges', () => {
  it('needs nothing for no messages at all, nor for a system message', () => {
    expect(needsOf({ messages: [] })).toEqual([]);
    expect(needsOf(ask({ role: 'system', content: 'be brief' }, { role: 'user', content: 'x' }))).toEqual([]);
  });

  it('needs toolResultMedia for a tool result that mixes text and an image', () => {
    const result: ChatMessage = {
      role: 'tool',
      toolCallId: 'c',
      content: [{ type: 'text', text: 'see' }, img('data')],
    };
    expect(needsOf(ask(result))).toContain('toolResultMedia');
  });

  it('reads prefill from the last message only', () => {
    const request = ask(
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    );
    expect(needsOf(request)).toEqual([]);
  });

  it('needs no prefill when the trailing assistant message calls a tool', () => {
    const call = { id: 'c', name: 'f', arguments: '{}' };
    expect(
      needsOf(
        ask({ role: 'user', content: 'x' }, { role: 'assistant', content: 'Let me look', toolCalls: [call] }),
      ),
    ).toEqual(['tools']);
  });
});
