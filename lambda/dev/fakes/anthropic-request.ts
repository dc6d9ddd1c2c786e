/**
 * What the Anthropic fake reads from a Messages request. Loose on purpose (real clients send many
 * fields), but strict where the real API is: `max_tokens` is required and roles alternate between
 * `user` and `assistant` only (system text belongs in `system`).
 */
import * as z from 'zod';

const textBlockSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const contentBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  content: z.union([z.string(), z.array(textBlockSchema)]).optional(),
});

/** The fields of `POST /v1/messages` the fake relies on. */
export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.int().positive(),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'assistant']),
        content: z.union([z.string(), z.array(contentBlockSchema)]),
      }),
    )
    .min(1),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.unknown()).optional(),
});

/** The fields of `POST /v1/messages/count_tokens`: a Messages request without `max_tokens`. */
export const countTokensRequestSchema = messagesRequestSchema.extend({
  max_tokens: z.int().positive().optional(),
});

/** A validated Messages request. */
export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;

/** The prompt of a Messages or count_tokens request. */
type Prompt = Pick<MessagesRequestBody, 'system' | 'messages'>;

type Content = MessagesRequestBody['messages'][number]['content'];

/** Text of one message's content: plain text, text blocks and tool-result text, joined. */
function contentText(content: Content): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => {
      if (block.text !== undefined) return block.text;
      const inner = block.content;
      if (typeof inner === 'string') return inner;
      return (inner ?? []).map((part) => part.text ?? '').join('');
    })
    .join('');
}

/** The `system` field as text. */
export function anthropicSystemText(body: Prompt): string {
  const { system } = body;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text ?? '').join('');
}

/** Characters of prompt text (system, messages, tool results), counted as the other fakes count them. */
export function anthropicPromptChars(body: Prompt): number {
  let chars = anthropicSystemText(body).length;
  for (const message of body.messages) chars += contentText(message.content).length;
  return chars;
}

/** Text of the last user message, for `echoPrompt`; '' when there is none. */
export function anthropicLastUserText(body: MessagesRequestBody): string {
  const last = body.messages.findLast((message) => message.role === 'user');
  return last === undefined ? '' : contentText(last.content);
}

/** Every message as role and text, the system prompt first as role `system` (as the OpenAI fake records it). */
export function anthropicMessages(body: Prompt): { role: string; text: string }[] {
  const system = anthropicSystemText(body);
  return [
    ...(system === '' ? [] : [{ role: 'system', text: system }]),
    ...body.messages.map((message) => ({ role: message.role, text: contentText(message.content) })),
  ];
}

/** The text of a trailing assistant message (a prefill the model continues), if the conversation ends with one. */
export function anthropicPrefill(body: MessagesRequestBody): string | undefined {
  const last = body.messages.at(-1);
  return last?.role === 'assistant' ? contentText(last.content) : undefined;
}
