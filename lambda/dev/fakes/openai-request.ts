/**
 * What the OpenAI fake reads from a Chat Completions request. Loose on purpose: unknown fields
 * pass (real clients send many), only what the fake uses is checked.
 */
import * as z from 'zod';

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
});

/** The fields of `POST /v1/chat/completions` the fake relies on. */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  tools: z.array(z.unknown()).nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.int().min(0).max(20).nullish(),
});

/** A validated Chat Completions request. */
export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

/** Characters of prompt text: string contents and text parts of every message (system and tool included). */
export function openaiPromptChars(body: ChatRequestBody): number {
  let chars = 0;
  for (const message of body.messages) {
    const { content } = message;
    if (typeof content === 'string') chars += content.length;
    else if (content) for (const part of content) chars += part.text?.length ?? 0;
  }
  return chars;
}

/** Text of the last user message (text parts joined), for `echoPrompt`; '' when there is none. */
export function openaiLastUserText(body: ChatRequestBody): string {
  const last = body.messages.findLast((message) => message.role === 'user');
  const content = last?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

/** The request's stop sequences as a list. */
export function openaiStops(body: ChatRequestBody): string[] | undefined {
  if (body.stop == null) return undefined;
  return typeof body.stop === 'string' ? [body.stop] : body.stop;
}

/** Every message as role and text (parts joined), for tests that check what a gateway sent. */
export function openaiMessages(body: ChatRequestBody): { role: string; text: string }[] {
  return body.messages.map((message) => {
    const { content } = message;
    const text =
      typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');
    return { role: message.role, text };
  });
}
