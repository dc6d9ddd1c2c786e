import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type {
  ChatMessage,
  ChatRequest,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
} from '../../core/chat/chat-model.js';
import { reasoningEffort } from '../../core/chat/reasoning-budget.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { toOpenAIToolContent, toOpenAIUserContent } from './openai-content.js';

/** The request body shared by the streaming and non-streaming calls. */
export type OpenAIBaseParams = Omit<ChatCompletionCreateParamsNonStreaming, 'stream'>;

/**
 * OpenAI reasoning models (`o1`, `o3-mini`, `o4-mini`, `gpt-5`, `gpt-5.1-mini`, ...) reject
 * `max_tokens` and want `max_completion_tokens`. Only the bare upstream id is matched: proxies
 * such as OpenRouter (`openai/o3`) accept `max_tokens` for every model.
 */
export function isReasoningModelId(model: string): boolean {
  return /^(o[1-9]\d*(-|$)|gpt-5)/.test(model);
}

/** Stands for the route in the rare error a message can raise (a part it cannot carry). */
const ANY_ROUTE: ErrorSubject = { provider: 'openai', model: 'unknown' };

/**
 * Maps one neutral message to the Chat Completions shape; system messages stay in place. A tool
 * result's `isError` has no field here: its text starts with `[tool error] ` instead
 * (docs/http-api.md#tool-result-errors).
 */
export function toOpenAIMessage(
  message: ChatMessage,
  subject: ErrorSubject = ANY_ROUTE,
): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: toOpenAIUserContent(message.content, subject) };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content,
        tool_calls: toolCalls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        content: toOpenAIToolContent(message.content, subject, message.isError),
      };
  }
}

/** Maps a tool definition to a `type: 'function'` tool. */
export function toOpenAITool(tool: ToolDefinition): ChatCompletionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
    },
  };
}

/** Maps our tool choice; a named tool becomes `{type: 'function', function: {name}}`. */
export function toOpenAIToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/**
 * Builds the request body for `model` (the raw upstream id). Unset options are left out rather
 * than sent as `null`, because several OpenAI-compatible servers reject explicit nulls.
 */
export function toOpenAIParams(
  request: ChatRequest,
  model: string,
  subject: ErrorSubject = ANY_ROUTE,
): OpenAIBaseParams {
  const messages = request.messages.map((message) => toOpenAIMessage(message, subject));
  const params: OpenAIBaseParams = { model, messages };
  if (request.maxTokens !== undefined) {
    if (isReasoningModelId(model)) params.max_completion_tokens = request.maxTokens;
    else params.max_tokens = request.maxTokens;
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.topP !== undefined) params.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) params.stop = request.stop;
  // OpenAI rejects `tool_choice` without `tools`, and without tools it means nothing anyway.
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map(toOpenAITool);
    if (request.toolChoice !== undefined) params.tool_choice = toOpenAIToolChoice(request.toolChoice);
  }
  if (request.responseFormat !== undefined)
    params.response_format = toOpenAIResponseFormat(request.responseFormat);
  // A token budget reads as its effort level (reasoning-budget.ts).
  const effort = reasoningEffort(request.reasoning);
  if (effort !== undefined) params.reasoning_effort = effort;
  if (request.logprobs !== undefined) {
    params.logprobs = true;
    if (request.logprobs.top > 0) params.top_logprobs = request.logprobs.top;
  }
  return params;
}

/** `response_format` as OpenAI-compatible servers take it (the gateway checks the answer either way). */
function toOpenAIResponseFormat(format: ResponseFormat): NonNullable<OpenAIBaseParams['response_format']> {
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict } = format;
  return { type: 'json_schema', json_schema: { name, schema, ...(strict === undefined ? {} : { strict }) } };
}

/** Streaming body; `include_usage` makes the server send a final chunk carrying token usage. */
export function toOpenAIStreamParams(
  request: ChatRequest,
  model: string,
  subject: ErrorSubject = ANY_ROUTE,
): ChatCompletionCreateParamsStreaming {
  return {
    ...toOpenAIParams(request, model, subject),
    stream: true,
    stream_options: { include_usage: true },
  };
}
