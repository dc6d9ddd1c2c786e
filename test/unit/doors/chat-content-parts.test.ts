import { describe, expect, it } from 'vitest';
import {
  chatCompletionBodySchema,
  toChatRequest,
} from '../../../lambda/doors/openai-chat/chat-request-schema.js';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';
const parse = (body: unknown) => toChatRequest(chatCompletionBodySchema.parse(body));
const user = (content: unknown) => ({ model: 'p', messages: [{ role: 'user', content }] });
/** The first issue's path and message, as the door's 400 names them. */
const problem = (body: unknown) => {
  const result = chatCompletionBodySchema.safeParse(body);
  if (result.success) return undefined;
  const [issue] = result.error.issues;
  return { path: issue?.path.join('.'), message: issue?.message };
};

describe('the OpenAI chat door reads content parts', () => {
  it('reads an image by http(s) URL, an image by data URL and a PDF file part in order', () => {
    const chat = parse(
      user([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'https://example.test/cat.png', detail: 'low' } },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'a.pdf' } },
      ]),
    );
    expect(chat.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { kind: 'url', url: 'https://example.test/cat.png' } },
        { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: PNG } },
        {
          type: 'document',
          name: 'a.pdf',
          source: { kind: 'data', mediaType: 'application/pdf', data: PDF },
        },
      ],
    });
  });

  it('keeps text-only parts one string, as before parts', () => {
    const chat = parse(
      user([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]),
    );
    expect(chat.messages[0]).toEqual({ role: 'user', content: 'ab' });
  });

  it('reads bare base64 file_data as a PDF', () => {
    const chat = parse(user([{ type: 'file', file: { file_data: PDF } }]));
    expect(chat.messages[0]?.content).toEqual([
      { type: 'document', source: { kind: 'data', mediaType: 'application/pdf', data: PDF } },
    ]);
  });

  it.each([
    [
      'an unsupported image media type',
      { type: 'image_url', image_url: { url: `data:image/bmp;base64,${PNG}` } },
      'messages.0.content.0.image_url.url',
      "media type 'image/bmp' is not supported; use one of image/png, image/jpeg, image/gif, image/webp",
    ],
    [
      'a data URL that is not base64',
      { type: 'image_url', image_url: { url: 'data:image/png,hello' } },
      'messages.0.content.0.image_url.url',
      'must be a base64 data URL (data:<media type>;base64,<data>)',
    ],
    [
      'a URL that is neither http(s) nor data',
      { type: 'image_url', image_url: { url: 'file:///etc/passwd' } },
      'messages.0.content.0.image_url.url',
      'must be an http(s) URL or a base64 data URL',
    ],
    [
      'a file that is not a PDF',
      { type: 'file', file: { file_data: `data:text/csv;base64,${PDF}` } },
      'messages.0.content.0.file.file_data',
      "media type 'text/csv' is not supported; use one of application/pdf",
    ],
    [
      'a file by id',
      { type: 'file', file: { file_id: 'file-1' } },
      'messages.0.content.0.file.file_id',
      'file_id needs the Files API, which the gateway does not serve: send the PDF as file_data',
    ],
  ])('refuses %s with a 400 naming the field', (_, part, path, message) => {
    expect(problem(user([part]))).toEqual({ path, message });
  });

  it('refuses audio parts, naming the part types it takes', () => {
    const body = user([{ type: 'input_audio', input_audio: { data: PNG, format: 'wav' } }]);
    expect(problem(body)?.message).toBe('content parts must be text, image_url or file');
  });

  it('takes text only in a tool message', () => {
    const body = {
      model: 'p',
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'tool',
          tool_call_id: 'c',
          content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }],
        },
      ],
    };
    expect(problem(body)?.path).toBe('messages.1.content');
  });
});

describe('the OpenAI chat door reads legacy functions', () => {
  const fn = { name: 'lookup', parameters: { type: 'object' } };

  it('reads functions and function_call as tools and a tool choice', () => {
    const chat = parse({ ...user('x'), functions: [fn], function_call: { name: 'lookup' } });
    expect(chat.tools).toEqual([{ name: 'lookup', description: undefined, parameters: { type: 'object' } }]);
    expect(chat.toolChoice).toEqual({ name: 'lookup' });
    expect(parse({ ...user('x'), functions: [fn], function_call: 'none' }).toolChoice).toBe('none');
  });

  it('links a function result to the legacy call before it', () => {
    const chat = parse({
      model: 'p',
      functions: [fn],
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":1}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(chat.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_legacy_1', name: 'lookup', arguments: '{"q":1}' }],
      },
      { role: 'tool', toolCallId: 'call_legacy_1', content: 'found' },
    ]);
  });

  it('refuses tools and functions together, and function_call without functions', () => {
    const tool = { type: 'function', function: { name: 't' } };
    expect(problem({ ...user('x'), functions: [fn], tools: [tool] })).toEqual({
      path: 'functions',
      message: 'send tools or the legacy functions, not both',
    });
    expect(problem({ ...user('x'), function_call: 'auto' })?.path).toBe('function_call');
  });
});

describe('the OpenAI chat door reads logprobs', () => {
  it('asks for log probabilities with top alternatives 0 to 20', () => {
    expect(parse({ ...user('x'), logprobs: true }).logprobs).toEqual({ top: 0 });
    expect(parse({ ...user('x'), logprobs: true, top_logprobs: 20 }).logprobs).toEqual({ top: 20 });
    expect(parse({ ...user('x'), logprobs: false }).logprobs).toBeUndefined();
    expect(problem({ ...user('x'), logprobs: true, top_logprobs: 21 })?.path).toBe('top_logprobs');
  });

  it('refuses top_logprobs without logprobs', () => {
    expect(problem({ ...user('x'), top_logprobs: 2 })).toEqual({
      path: 'top_logprobs',
      message: 'top_logprobs needs logprobs: true',
    });
  });
});

describe('the demand of a request with images', () => {
  it('counts an inline image at a fixed 6400 characters, whatever its base64 size', async () => {
    const { chatCompletionDemand } = await import('../../../lambda/doors/openai-chat/chat-request-schema.js');
    const big = `data:image/png;base64,${'A'.repeat(200_000)}`;
    const body = chatCompletionBodySchema.parse(user([{ type: 'image_url', image_url: { url: big } }]));
    const json = JSON.stringify(body.messages).length;
    expect(chatCompletionDemand(body).inputChars).toBe(json - 200_000 + 6_400);
  });

  it('stores and reads back a job body with parts unchanged (the stored shape is the wire shape)', async () => {
    const { storedJobRequestSchema } = await import('../../../lambda/doors/jobs/job-request-schema.js');
    const body = user([
      { type: 'text', text: 'x' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    const stored = storedJobRequestSchema.parse(body);
    expect(storedJobRequestSchema.parse(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
    expect(stored.messages[0]).toEqual(body.messages[0]);
  });
});
