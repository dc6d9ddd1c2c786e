import { describe, expect, it } from 'vitest';
import { formatPath } from '../../../lambda/core/catalog/parse-config.js';
import { responsesBodySchema } from '../../../lambda/doors/openai-responses/responses-request-schema.js';
import {
  responsesDemand,
  responsesToChatRequest,
} from '../../../lambda/doors/openai-responses/responses-to-chat.js';

const schema = responsesBodySchema(4);
const read = (body: Record<string, unknown>) => responsesToChatRequest(schema.parse({ model: 'p', ...body }));
/** The first issue of a refused body: its field and its message. */
function refusal(body: Record<string, unknown>): { param: string; message: string } {
  const parsed = schema.safeParse({ model: 'p', input: 'hi', ...body });
  if (parsed.success) throw new Error('expected a refusal');
  const [issue] = parsed.error.issues;
  return { param: formatPath(issue?.path ?? []), message: issue?.message ?? '' };
}

describe('a Responses request read as a neutral chat request', () => {
  it('reads a string input as one user message after the instructions', () => {
    expect(read({ input: 'hello', instructions: 'Be brief.' }).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ]);
  });

  it('reads message items with and without type, joining text parts, developer as system', () => {
    const chat = read({
      input: [
        { role: 'developer', content: 'rules' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'c' }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'ab' },
      { role: 'assistant', content: 'c' },
    ]);
  });

  it('joins function calls to the assistant turn before them and reads their outputs as tool messages', () => {
    const chat = read({
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: 'c1', name: 'w', arguments: '{"city":"Oslo"}', id: 'fc_1' },
        { type: 'function_call', call_id: 'c2', name: 'w', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'cold' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'w', arguments: '{"city":"Oslo"}' },
          { id: 'c2', name: 'w', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', content: 'cold' },
    ]);
  });

  it('carries function tools, tool_choice, sampling, max_output_tokens, text.format and reasoning.effort', () => {
    const chat = read({
      input: 'x',
      tools: [
        { type: 'function', name: 'w', description: 'weather', parameters: { type: 'object' }, strict: true },
      ],
      tool_choice: { type: 'function', name: 'w' },
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 100,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low' },
      metadata: { team: 'a' },
      user: 'u1',
      store: false,
    });
    expect(chat).toMatchObject({
      tools: [{ name: 'w', description: 'weather', parameters: { type: 'object' } }],
      toolChoice: { name: 'w' },
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 100,
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      reasoning: { effort: 'low' },
    });
  });

  it('reads json_object as structured output, and text or effort none as nothing asked', () => {
    expect(read({ input: 'x', text: { format: { type: 'json_object' } } }).responseFormat).toEqual({
      type: 'json_object',
    });
    const plain = read({ input: 'x', text: { format: { type: 'text' } }, reasoning: { effort: 'none' } });
    expect(plain.responseFormat).toBeUndefined();
    expect(plain).not.toHaveProperty('reasoning');
  });

  it('measures its demand in input items and names max_output_tokens', () => {
    const body = schema.parse({
      input: [
        { role: 'user', content: 'hi' },
        { role: 'user', content: 'again' },
      ],
      max_output_tokens: 7,
    });
    expect(responsesDemand(body)).toMatchObject({
      messages: 2,
      output: { tokens: 7, param: 'max_output_tokens' },
    });
    expect(responsesDemand(schema.parse({ input: 'hi' }))).toMatchObject({ messages: 1, output: undefined });
  });
});

describe('what the Responses door refuses, by field', () => {
  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id', /send the whole conversation in `input`/],
    [{ conversation: 'conv_1' }, 'conversation', /stores no conversations/],
    [{ store: true }, 'store', /omit `store` or set it to false/],
    [{ background: true }, 'background', /POST \/v1\/jobs/],
    [{ prompt: { id: 'pmpt_1' } }, 'prompt', /send the prompt text in `instructions`/],
    [
      { tools: [{ type: 'web_search' }] },
      'tools[0].type',
      /built-in tool 'web_search'.*declare a function tool/,
    ],
    [{ tools: [{ type: 'file_search', vector_store_ids: [] }] }, 'tools[0].type', /'file_search'/],
    [{ tools: [{ type: 'computer_use_preview' }] }, 'tools[0].type', /'computer_use_preview'/],
    [{ tools: [{ type: 'custom', name: 'grammar' }] }, 'tools[0].type', /custom \(free-form input\) tools/],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type', /store = false/],
    [{ input: [{ type: 'reasoning', id: 'rs_1' }] }, 'input[0].type', /'reasoning' are not carried/],
    [
      { input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==' } }] }] },
      'input[0].content[0].type',
      /'input_audio' are not carried/,
    ],
    [{ tool_choice: { type: 'web_search_preview' } }, 'tool_choice', /built-in tools are not carried/],
    [{ input: [{ role: 'tool', content: 'x' }] }, 'input[0].role', /role must be/],
    [
      { input: [{ type: 'function_call', name: 'w', arguments: '{}' }] },
      'input[0].call_id',
      /expected string/,
    ],
  ])('refuses %j naming %s', (body, param, message) => {
    const found = refusal(body);
    expect(found.param).toBe(param);
    expect(found.message).toMatch(message);
  });

  it('accepts store: false, background: false and null stateful fields', () => {
    expect(() =>
      schema.parse({ input: 'x', store: false, background: false, previous_response_id: null }),
    ).not.toThrow();
  });

  it('bounds input at limits.maxMessages items exactly', () => {
    const items = (n: number) => Array.from({ length: n }, () => ({ role: 'user', content: 'x' }));
    expect(schema.safeParse({ input: items(4) }).success).toBe(true);
    expect(refusal({ input: items(5) })).toEqual({
      param: 'input',
      message: 'at most 4 items per request (limits.maxMessages)',
    });
  });
});
