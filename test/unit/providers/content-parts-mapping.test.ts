import { describe, expect, it } from 'vitest';
import type { ChatMessage, ContentPart } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { toAnthropicMessages } from '../../../lambda/families/anthropic/anthropic-request.js';
import { converseDocumentName, toConverseContent } from '../../../lambda/families/bedrock/bedrock-content.js';
import { toConverseMessages } from '../../../lambda/families/bedrock/bedrock-request.js';
import { toOpenAIMessage } from '../../../lambda/families/openai-compatible/openai-request.js';

const subject = { provider: 'p', model: 'm' };
const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';
const text: ContentPart = { type: 'text', text: 'What is this?' };
const imageUrl: ContentPart = { type: 'image', source: { kind: 'url', url: 'https://x.test/cat.png' } };
const imageData: ContentPart = { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: PNG } };
const pdf: ContentPart = {
  type: 'document',
  name: 'Q3 report.pdf',
  source: { kind: 'data', mediaType: 'application/pdf', data: PDF },
};
const pdfUrl: ContentPart = { type: 'document', source: { kind: 'url', url: 'https://x.test/a.pdf' } };
const user = (...content: ContentPart[]): ChatMessage => ({ role: 'user', content });

describe('content parts on openai-compatible routes', () => {
  it('sends images as image_url (URL or data URL) and a PDF as a file part with file_data', () => {
    expect(toOpenAIMessage(user(text, imageUrl, imageData, pdf), subject)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'https://x.test/cat.png' } },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        {
          type: 'file',
          file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'Q3 report.pdf' },
        },
      ],
    });
  });

  it('keeps text-only content a string', () => {
    expect(toOpenAIMessage(user(text), subject)).toEqual({ role: 'user', content: 'What is this?' });
  });

  it('refuses a document by URL rather than strip it', () => {
    expect(() => toOpenAIMessage(user(pdfUrl), subject)).toThrow(ProviderError);
  });

  it('marks a failed tool result in its text, since Chat Completions has no is_error', () => {
    const failed: ChatMessage = { role: 'tool', toolCallId: 'c1', content: 'no such city', isError: true };
    expect(toOpenAIMessage(failed, subject)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '[tool error] no such city',
    });
    expect(toOpenAIMessage({ ...failed, isError: undefined }, subject)).toMatchObject({
      content: 'no such city',
    });
  });

  it('refuses media in a tool result (text only there)', () => {
    const result: ChatMessage = { role: 'tool', toolCallId: 'c1', content: [imageData] };
    expect(() => toOpenAIMessage(result, subject)).toThrow(/cannot carry a image by data in a tool result/);
  });
});

describe('content parts on anthropic routes', () => {
  it('sends image and document blocks with base64 or url sources, a PDF name as title', () => {
    const { messages } = toAnthropicMessages([user(text, imageUrl, imageData, pdf, pdfUrl)], subject);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'url', url: 'https://x.test/cat.png' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            title: 'Q3 report.pdf',
          },
          { type: 'document', source: { type: 'url', url: 'https://x.test/a.pdf' } },
        ],
      },
    ]);
  });

  it('sends is_error and media in a tool result', () => {
    const { messages } = toAnthropicMessages(
      [
        { role: 'assistant', content: null, toolCalls: [{ id: 't1', name: 'shot', arguments: '{}' }] },
        { role: 'tool', toolCallId: 't1', content: [text, imageData], isError: true },
      ],
      subject,
    );
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          is_error: true,
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      ],
    });
  });
});

describe('content parts on bedrock routes', () => {
  it('sends an image as {format, source.bytes} and a PDF as {format, name, source.bytes}', () => {
    const blocks = toConverseContent([text, imageData, pdf], subject);
    expect(blocks).toEqual([
      { text: 'What is this?' },
      { image: { format: 'png', source: { bytes: Buffer.from(PNG, 'base64') } } },
      { document: { format: 'pdf', name: 'Q3 report', source: { bytes: Buffer.from(PDF, 'base64') } } },
    ]);
  });

  it.each([
    ['an image by URL', imageUrl],
    ['a document by URL', pdfUrl],
  ])('refuses %s (Converse takes no URL and the gateway fetches none)', (_, part) => {
    expect(() => toConverseContent([part], subject)).toThrow(ProviderError);
  });

  it('marks a failed tool result with status error and carries its media', () => {
    const { messages } = toConverseMessages(
      [{ role: 'tool', toolCallId: 't1', content: [imageData], isError: true }],
      subject,
    );
    expect(messages[0]?.content?.[0]).toEqual({
      toolResult: {
        toolUseId: 't1',
        status: 'error',
        content: [{ image: { format: 'png', source: { bytes: Buffer.from(PNG, 'base64') } } }],
      },
    });
  });

  it.each([
    ['Q3 report.pdf', 1, 'Q3 report'],
    ['a/b\\c:d.pdf', 1, 'a b c d'],
    ['  two   spaces  ', 1, 'two spaces'],
    ['(draft) [v2]-final', 1, '(draft) [v2]-final'],
    ['...', 2, 'document-2'],
    [undefined, 3, 'document-3'],
  ])('names document %j (number %i) %j as Converse allows', (name, n, expected) => {
    expect(converseDocumentName(name, n)).toBe(expected);
  });
});
