import * as z from 'zod';
import type {
  ChatMessage,
  ChatRequest,
  ReasoningBlock,
  ResponseFormat,
  ToolChoice,
} from '../../core/chat/chat-model.js';
import { imageCharsAdjustment } from '../../core/chat/media-demand.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { chatDemand, type RequestDemand } from '../../core/lifecycle/request-demand.js';
import { cacheControlSchema } from '../shared/cache-breakpoint.js';
import { textContent, toUserContent, userContent } from './chat-content-schema.js';
import {
  messageCache,
  reasoningDetailsSchema,
  reasoningEffortSchema,
  reasoningFromDetails,
} from './chat-extras-schema.js';
import {
  functionMessage,
  legacyCallId,
  legacyFunction,
  legacyFunctionCall,
  linkFunctionResults,
  pendingFunctionResult,
  toolChoiceOfFunctionCall,
  toolsOfFunctions,
} from './legacy-functions.js';

/** Text, or an array of text parts (system, developer, assistant and tool messages). */
const content = textContent;

const toolCallOnce = once(() =>
  z.object({
    id: z.string().min(1),
    type: z.literal('function').optional(),
    function: z.object({ name: z.string().min(1), arguments: z.string() }),
  }),
);

/** Fields every message may carry: a cache breakpoint at its end (OpenRouter style). */
const cached = { cache_control: cacheControlSchema.optional() };

const messageOnce = once(() =>
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content, ...cached }),
    z.object({ role: z.literal('developer'), content, ...cached }),
    z.object({ role: z.literal('user'), content: userContent, ...cached }),
    z.object({
      role: z.literal('assistant'),
      content: content.nullish(),
      tool_calls: z.array(toolCallOnce()).optional(),
      reasoning_details: reasoningDetailsSchema.optional(),
      /** A legacy call (`functions`), read as a tool call. */
      function_call: z.object({ name: z.string().min(1), arguments: z.string() }).nullish(),
      ...cached,
    }),
    z.object({ role: z.literal('tool'), content, tool_call_id: z.string().min(1), ...cached }),
    functionMessage,
  ]),
);

const toolOnce = once(() =>
  z.object({
    type: z.literal('function'),
    function: z.object({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
);

const toolChoiceOnce = once(() =>
  z.union([
    z.enum(['auto', 'none', 'required']),
    z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
  ]),
);

/** OpenAI's `response_format`: text, any JSON object, or JSON matching a schema. */
const responseFormatOnce = once(() =>
  z.discriminatedUnion('type', [
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
  ]),
);

/** The fields of a chat completion body, before the checks across fields ({@link checkChatFields}). */
export const chatCompletionObjectSchema = lazySchema(() => chatCompletionObjectSchemaOnce());
const chatCompletionObjectSchemaOnce = once(() =>
  z.object({
    /** A pipeline name, or a chain over the catalog. Optional when `x-switchyard-pipeline` names it. */
    model: z.string().max(2_000).optional(),
    messages: z.array(messageOnce()).min(1, 'must hold at least one message'),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().positive().nullish(),
    max_completion_tokens: z.number().int().positive().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
    n: z.literal(1, 'only n = 1 is supported').nullish(),
    tools: z.array(toolOnce()).max(128).optional(),
    tool_choice: toolChoiceOnce().optional(),
    /** Legacy tools (docs/http-api.md#legacy-functions); not together with `tools`. */
    functions: z.array(legacyFunction).min(1).max(128).optional(),
    function_call: legacyFunctionCall.optional(),
    response_format: responseFormatOnce().nullish(),
    reasoning_effort: reasoningEffortSchema.nullish(),
    /** Token log probabilities in the answer; only routes that return them are tried. */
    logprobs: z.boolean().nullish(),
    /** Alternatives per token, 0–20; needs `logprobs: true`. */
    top_logprobs: z.number().int().min(0).max(20).nullish(),
  }),
);

/**
 * The checks across fields of a chat completion body: `tools` or `functions`, not both;
 * `function_call` only with `functions`; `top_logprobs` only with `logprobs: true`.
 */
export function checkChatFields(
  body: Pick<ChatCompletionObject, 'tools' | 'functions' | 'function_call' | 'logprobs' | 'top_logprobs'>,
  ctx: z.RefinementCtx,
): void {
  if (body.functions !== undefined && body.tools !== undefined)
    ctx.addIssue({
      code: 'custom',
      message: 'send tools or the legacy functions, not both',
      path: ['functions'],
    });
  if (body.function_call !== undefined && body.functions === undefined)
    ctx.addIssue({ code: 'custom', message: 'function_call needs functions', path: ['function_call'] });
  if (body.top_logprobs != null && body.logprobs !== true)
    ctx.addIssue({ code: 'custom', message: 'top_logprobs needs logprobs: true', path: ['top_logprobs'] });
}

type ChatCompletionObject = z.infer<typeof chatCompletionObjectSchema>;

/**
 * The body of `POST /v1/chat/completions`: the OpenAI Chat Completions request. Fields that no
 * provider family shares are accepted and ignored, so existing clients work unchanged.
 */
export const chatCompletionBodySchema = lazySchema(() => chatCompletionBodySchemaOnce());
const chatCompletionBodySchemaOnce = once(() =>
  chatCompletionObjectSchemaOnce().superRefine(checkChatFields),
);

export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

const text = (value: z.infer<typeof content> | null | undefined): string =>
  typeof value === 'string' ? value : (value ?? []).map((part) => part.text).join('');

const withReasoning = (reasoning: ReasoningBlock[] | undefined) => (reasoning ? { reasoning } : {});

/** One message, with its cache breakpoint when it has one. */
function toMessage(m: ChatCompletionBody['messages'][number], index: number): ChatMessage {
  const cache = messageCache(m);
  return cache === undefined ? toBareMessage(m, index) : { ...toBareMessage(m, index), cache };
}

function toBareMessage(m: ChatCompletionBody['messages'][number], index: number): ChatMessage {
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: text(m.content) };
    case 'user':
      return { role: 'user', content: toUserContent(m.content) };
    case 'assistant': {
      const calls = m.tool_calls?.map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      }));
      const legacy = m.function_call ? [{ id: legacyCallId(index), ...m.function_call }] : [];
      const toolCalls = calls || legacy.length > 0 ? [...(calls ?? []), ...legacy] : undefined;
      return {
        role: 'assistant',
        content: m.content === undefined || m.content === null ? null : text(m.content),
        toolCalls,
        ...withReasoning(reasoningFromDetails(m.reasoning_details)),
      };
    }
    case 'tool':
      return { role: 'tool', content: text(m.content), toolCallId: m.tool_call_id };
    case 'function':
      return pendingFunctionResult(m);
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
    messages: linkFunctionResults(body.messages.map(toMessage)),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    stop: body.stop === undefined || body.stop === null ? undefined : [body.stop].flat(),
    tools:
      body.tools?.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        parameters: t.function.parameters,
      })) ?? (body.functions ? toolsOfFunctions(body.functions) : undefined),
    toolChoice: body.functions
      ? toolChoiceOfFunctionCall(body.function_call)
      : toToolChoice(body.tool_choice),
    responseFormat: toResponseFormat(body.response_format),
    ...(body.reasoning_effort ? { reasoning: { effort: body.reasoning_effort } } : {}),
    logprobs: body.logprobs === true ? { top: body.top_logprobs ?? 0 } : undefined,
  };
}

/**
 * What a chat completion body asks (the lifecycle's demand): its messages, their JSON size (each
 * image counted at a fixed size, not its base64 text: `imageCharsAdjustment`), and
 * `max_completion_tokens` (else `max_tokens`), named as the caller named it.
 */
export function chatCompletionDemand(
  body: Pick<ChatCompletionBody, 'messages' | 'max_tokens' | 'max_completion_tokens'>,
): RequestDemand {
  const param = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const tokens = body.max_completion_tokens ?? body.max_tokens;
  const output = tokens == null ? undefined : { tokens, param };
  const inputChars =
    JSON.stringify(body.messages).length + imageCharsAdjustment(body.messages.map(toMessage));
  return chatDemand(body.messages.length, inputChars, output);
}
