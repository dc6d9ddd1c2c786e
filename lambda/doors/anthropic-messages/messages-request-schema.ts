/**
 * The body of `POST /v1/messages`: Anthropic's Messages API request, read into the same
 * provider-neutral `ChatRequest` as `/v1/chat/completions`, so the same chains serve both.
 */
import * as z from 'zod';
import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  MessageContent,
  ToolCall,
  ToolChoice,
} from '../../core/chat/chat-model.js';
import { simplestContent } from '../../core/chat/content-parts.js';
import { imageCharsAdjustment } from '../../core/chat/media-demand.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { chatDemand, type RequestDemand } from '../../core/lifecycle/request-demand.js';
import { breakpointOf } from '../shared/cache-breakpoint.js';
import { documentBlock, imageBlock } from './messages-content-schema.js';
import {
  cacheable,
  reasoningBlocks,
  redactedThinkingBlockSchema,
  thinkingBlockSchema,
  thinkingRequest,
  thinkingSchema,
  withCache,
} from './messages-extras-schema.js';

const textBlockOnce = once(() => z.object({ type: z.literal('text'), text: z.string(), ...cacheable }));

const toolResultBlockOnce = once(() =>
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z
      .union([
        z.string(),
        z.array(
          z.discriminatedUnion('type', [textBlockOnce(), imageBlock, documentBlock], {
            error: 'tool_result content blocks must be text, image or document',
          }),
        ),
      ])
      .optional(),
    is_error: z.boolean().optional(),
    ...cacheable,
  }),
);

const toolUseBlockOnce = once(() =>
  z.object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }),
    ...cacheable,
  }),
);

const blocks = <T extends z.ZodType>(block: T) =>
  z.union([z.string(), z.array(block)], {
    error: 'must be a string or an array of supported content blocks',
  });

const messageOnce = once(() =>
  z.discriminatedUnion('role', [
    z.object({
      role: z.literal('user'),
      content: blocks(
        z.discriminatedUnion('type', [textBlockOnce(), imageBlock, documentBlock, toolResultBlockOnce()], {
          error: 'user content blocks must be text, image, document or tool_result',
        }),
      ),
    }),
    z.object({
      role: z.literal('assistant'),
      content: blocks(
        z.discriminatedUnion(
          'type',
          [textBlockOnce(), toolUseBlockOnce(), thinkingBlockSchema, redactedThinkingBlockSchema],
          {
            error: 'assistant content blocks must be text, tool_use or thinking',
          },
        ),
      ),
    }),
  ]),
);

const toolOnce = once(() =>
  z.object({
    type: z.literal('custom', 'only custom tools (name, input_schema) are supported').optional(),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }),
    ...cacheable,
  }),
);

const toolChoiceOnce = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.enum(['auto', 'any', 'none']) }),
    z.object({ type: z.literal('tool'), name: z.string().min(1) }),
  ]),
);

/**
 * The Messages request. `max_tokens` is required, as Anthropic requires it. `thinking` and
 * `cache_control` are carried (messages-extras-schema.ts); fields that no other provider family
 * shares (`metadata`, `top_k`...) are accepted and ignored, so existing clients work unchanged.
 */
export const messagesBodySchema = lazySchema(() => messagesBodySchemaOnce());
const messagesBodySchemaOnce = once(() =>
  z.object({
    /** A pipeline name, or a chain over the catalog. Optional when `x-switchyard-pipeline` names it. */
    model: z.string().max(2_000).optional(),
    max_tokens: z.number().int().positive(),
    messages: z.array(messageOnce()).min(1, 'must hold at least one message'),
    system: z.union([z.string(), z.array(textBlockOnce())]).optional(),
    stop_sequences: z.array(z.string()).max(16).optional(),
    stream: z.boolean().optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().nonnegative().optional(),
    tools: z.array(toolOnce()).max(128).optional(),
    tool_choice: toolChoiceOnce().optional(),
    thinking: thinkingSchema.optional(),
  }),
);

export type MessagesBody = z.infer<typeof messagesBodySchema>;

/**
 * The body of `POST /v1/messages/count_tokens`: a Messages request whose `max_tokens` (and other
 * output settings) may be left out, as Anthropic's count endpoint takes them.
 */
export const countTokensBodySchema = lazySchema(() => countTokensBodySchemaOnce());
const countTokensBodySchemaOnce = once(() =>
  messagesBodySchemaOnce().extend({
    max_tokens: z.number().int().positive().optional(),
  }),
);

/** A Messages body or a count_tokens body: everything but `max_tokens` is the same. */
export type CountedMessagesBody = z.infer<typeof countTokensBodySchema>;

type Blocks<T> = string | T[];
const text = (content: Blocks<{ type: string; text?: string }> | undefined): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');

type UserMessage = Extract<MessagesBody['messages'][number], { role: 'user' }>;
type AssistantMessage = Extract<MessagesBody['messages'][number], { role: 'assistant' }>;

/** Blocks that are content parts (text, image, document) as neutral content: text only joins into a string. */
function partsContent(blocks: readonly { type: string }[]): MessageContent {
  const parts = blocks.filter((b): b is ContentPart => ['text', 'image', 'document'].includes(b.type));
  // A text block's cache_control is read apart (breakpointOf); the neutral part is its text only.
  return simplestContent(
    parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : part)),
  );
}

/**
 * A user turn: its tool results first, as `tool` messages (they must follow the assistant's
 * calls directly), then its text, images and documents, if any, as one user message.
 */
function userMessages(m: UserMessage): ChatMessage[] {
  if (typeof m.content === 'string') return [{ role: 'user', content: m.content }];
  const out: ChatMessage[] = [];
  for (const block of m.content) {
    if (block.type === 'tool_result') {
      const content = typeof block.content === 'object' ? partsContent(block.content) : (block.content ?? '');
      const result: ChatMessage = {
        role: 'tool',
        toolCallId: block.tool_use_id,
        content,
        ...(block.is_error === true ? { isError: true } : {}),
      };
      out.push(withCache(result, breakpointOf([block])));
    }
  }
  const said = partsContent(m.content);
  const texts = m.content.filter((block) => block.type === 'text');
  if (said.length > 0 || out.length === 0)
    out.push(withCache({ role: 'user', content: said }, breakpointOf(texts)));
  return out;
}

function assistantMessage(m: AssistantMessage): ChatMessage {
  const said = text(m.content);
  const toolCalls: ToolCall[] = [];
  if (typeof m.content !== 'string') {
    for (const block of m.content) {
      if (block.type === 'tool_use') {
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
      }
    }
  }
  const reasoning = reasoningBlocks(m.content);
  const message: ChatMessage = {
    role: 'assistant',
    content: said === '' && (toolCalls.length > 0 || reasoning.length > 0) ? null : said,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning.length > 0 ? { reasoning } : {}),
  };
  return withCache(message, typeof m.content === 'string' ? undefined : breakpointOf(m.content));
}

/**
 * `system` as system messages: its text as one, or, when a block sets a cache breakpoint, one per
 * block, so the breakpoints keep their places.
 */
function systemMessages(system: MessagesBody['system']): ChatMessage[] {
  if (system === undefined) return [];
  if (typeof system === 'string' || breakpointOf(system) === undefined) {
    const joined = text(system);
    return joined === '' ? [] : [{ role: 'system', content: joined }];
  }
  return system.map((block) => withCache({ role: 'system', content: block.text }, breakpointOf([block])));
}

function toToolChoice(choice: MessagesBody['tool_choice']): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice.type === 'tool') return { name: choice.name };
  return choice.type === 'any' ? 'required' : choice.type;
}

/** The provider-neutral request: `system` becomes the first system message. */
export function messagesToChatRequest(body: CountedMessagesBody): ChatRequest {
  const messages: ChatMessage[] = systemMessages(body.system);
  for (const m of body.messages) {
    if (m.role === 'user') messages.push(...userMessages(m));
    else messages.push(assistantMessage(m));
  }
  return {
    messages,
    maxTokens: body.max_tokens,
    temperature: body.temperature,
    topP: body.top_p,
    stop: body.stop_sequences,
    tools: body.tools?.map((t) => {
      const cache = breakpointOf([t]);
      const tool = { name: t.name, description: t.description, parameters: t.input_schema };
      return cache === undefined ? tool : { ...tool, cache };
    }),
    toolChoice: toToolChoice(body.tool_choice),
    ...(body.thinking?.type === 'enabled' ? { reasoning: thinkingRequest(body.thinking) } : {}),
  };
}

/**
 * What a Messages body asks (the lifecycle's demand): its messages and `system` (each image
 * counted at a fixed size, not its base64 text: `imageCharsAdjustment`), and its `max_tokens`
 * (absent on a count).
 */
export function messagesDemand(
  body: Pick<CountedMessagesBody, 'messages' | 'system' | 'max_tokens'>,
): RequestDemand {
  const users = body.messages.flatMap((m) => (m.role === 'user' ? userMessages(m) : []));
  const inputChars =
    JSON.stringify(body.messages).length +
    (body.system ? JSON.stringify(body.system).length : 0) +
    imageCharsAdjustment(users);
  const output = body.max_tokens === undefined ? undefined : { tokens: body.max_tokens, param: 'max_tokens' };
  return chatDemand(body.messages.length, inputChars, output);
}
