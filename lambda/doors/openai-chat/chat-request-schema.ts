import * as z from 'zod';
import type {
  ChatMessage,
  ChatRequest,
  ReasoningBlock,
  ResponseFormat,
  ToolChoice,
} from '../../core/chat/chat-model.js';
import { chatDemand, type RequestDemand } from '../../core/lifecycle/request-demand.js';
import { cacheControlSchema } from '../shared/cache-breakpoint.js';
import {
  messageCache,
  reasoningDetailsSchema,
  reasoningEffortSchema,
  reasoningFromDetails,
} from './chat-extras-schema.js';

/** Text, or an array of text parts (the only part type every provider family accepts). */
const content = z.union([
  z.string(),
  z.array(
    z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControlSchema.optional() }),
    {
      error: 'must be a string or an array of {type: "text", text} parts',
    },
  ),
]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

/** Fields every message may carry: a cache breakpoint at its end (OpenRouter style). */
const cached = { cache_control: cacheControlSchema.optional() };

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content, ...cached }),
  z.object({ role: z.literal('developer'), content, ...cached }),
  z.object({ role: z.literal('user'), content, ...cached }),
  z.object({
    role: z.literal('assistant'),
    content: content.nullish(),
    tool_calls: z.array(toolCall).optional(),
    reasoning_details: reasoningDetailsSchema.optional(),
    ...cached,
  }),
  z.object({ role: z.literal('tool'), content, tool_call_id: z.string().min(1), ...cached }),
]);

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

/** OpenAI's `response_format`: text, any JSON object, or JSON matching a schema. */
const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/**
 * The body of `POST /v1/chat/completions`: the OpenAI Chat Completions request. Fields that no
 * provider family shares are accepted and ignored, so existing clients work unchanged.
 */
export const chatCompletionBodySchema = z.object({
  /** A pipeline name, or a chain over the catalog. Optional when `x-switchyard-pipeline` names it. */
  model: z.string().max(2_000).optional(),
  messages: z.array(message).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  n: z.literal(1, 'only n = 1 is supported').nullish(),
  tools: z.array(tool).max(128).optional(),
  tool_choice: toolChoice.optional(),
  response_format: responseFormat.nullish(),
  reasoning_effort: reasoningEffortSchema.nullish(),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

const text = (value: z.infer<typeof content> | null | undefined): string =>
  typeof value === 'string' ? value : (value ?? []).map((part) => part.text).join('');

const withReasoning = (reasoning: ReasoningBlock[] | undefined) => (reasoning ? { reasoning } : {});

/** One message, with its cache breakpoint when it has one. */
function toMessage(m: ChatCompletionBody['messages'][number]): ChatMessage {
  const cache = messageCache(m);
  return cache === undefined ? toBareMessage(m) : { ...toBareMessage(m), cache };
}

function toBareMessage(m: ChatCompletionBody['messages'][number]): ChatMessage {
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: text(m.content) };
    case 'user':
      return { role: 'user', content: text(m.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content === undefined || m.content === null ? null : text(m.content),
        toolCalls: m.tool_calls?.map((c) => ({
          id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        })),
        ...withReasoning(reasoningFromDetails(m.reasoning_details)),
      };
    case 'tool':
      return { role: 'tool', content: text(m.content), toolCallId: m.tool_call_id };
  }
}

function toToolChoice(choice: ChatCompletionBody['tool_choice']): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { name: choice.function.name };
}

function toResponseFormat(format: ChatCompletionBody['response_format']): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict } = format.json_schema;
  return { type: 'json_schema', name, schema, strict: strict ?? undefined };
}

/** The provider-neutral request the router sends to every model. */
export function toChatRequest(body: ChatCompletionBody): ChatRequest {
  return {
    messages: body.messages.map(toMessage),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    stop: body.stop === undefined || body.stop === null ? undefined : [body.stop].flat(),
    tools: body.tools?.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
    })),
    toolChoice: toToolChoice(body.tool_choice),
    responseFormat: toResponseFormat(body.response_format),
    ...(body.reasoning_effort ? { reasoning: { effort: body.reasoning_effort } } : {}),
  };
}

/**
 * What a chat completion body asks (the lifecycle's demand): its messages, their JSON size, and
 * `max_completion_tokens` (else `max_tokens`), named as the caller named it.
 */
export function chatCompletionDemand(
  body: Pick<ChatCompletionBody, 'messages' | 'max_tokens' | 'max_completion_tokens'>,
): RequestDemand {
  const param = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const tokens = body.max_completion_tokens ?? body.max_tokens;
  const output = tokens == null ? undefined : { tokens, param };
  return chatDemand(body.messages.length, JSON.stringify(body.messages).length, output);
}
