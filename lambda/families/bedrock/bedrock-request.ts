import type {
  ContentBlock,
  ConverseRequest,
  ToolChoice as ConverseToolChoice,
  InferenceConfiguration,
  Message,
  SystemContentBlock,
  ToolConfiguration,
  ToolResultContentBlock,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import type { ChatMessage, ChatRequest, ToolCall, ToolChoice } from '../../core/chat/chat-model.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { toolInput } from '../shared/tool-input.js';
import { toConverseContent } from './bedrock-content.js';
import {
  ANSWER_TOKENS_AFTER_BUDGET,
  cachePoint,
  converseReasoningFields,
  reasoningContentBlocks,
} from './bedrock-extras.js';

/** A Smithy document (any JSON value), as Converse takes tool inputs and schemas. */
export type ConverseDocument = NonNullable<ToolUseBlock['input']>;

/** The fields `ConverseCommand` and `ConverseStreamCommand` share; assignable to both inputs. */
export type ConverseBody = Required<Pick<ConverseRequest, 'modelId' | 'messages'>> &
  Pick<ConverseRequest, 'system' | 'inferenceConfig' | 'toolConfig' | 'additionalModelRequestFields'>;

/** A tool call's JSON arguments as Converse wants `toolUse.input` (a JSON object; else `invalid_request`). */
export function converseToolInput(call: ToolCall, subject: ErrorSubject): ConverseDocument {
  return toolInput(call, subject) as ConverseDocument;
}

/**
 * Content blocks of one non-system message; empty text is dropped because Converse rejects blank
 * text. A cache breakpoint is a `cachePoint` block after the message's content.
 */
function toContentBlocks(
  message: Exclude<ChatMessage, { role: 'system' }>,
  subject: ErrorSubject,
): ContentBlock[] {
  const blocks = messageBlocks(message, subject);
  if (message.cache !== undefined && blocks.length > 0) blocks.push(cachePoint(message.cache));
  return blocks;
}

function messageBlocks(
  message: Exclude<ChatMessage, { role: 'system' }>,
  subject: ErrorSubject,
): ContentBlock[] {
  switch (message.role) {
    case 'user':
      return toConverseContent(message.content, subject);
    case 'assistant': {
      // Reasoning comes first, as the model wrote it.
      const blocks: ContentBlock[] = reasoningContentBlocks(message.reasoning);
      if (message.content) blocks.push({ text: message.content });
      for (const call of message.toolCalls ?? []) {
        blocks.push({
          toolUse: { toolUseId: call.id, name: call.name, input: converseToolInput(call, subject) },
        });
      }
      return blocks;
    }
    case 'tool':
      return [
        {
          toolResult: {
            toolUseId: message.toolCallId,
            // Converse rejects an empty content list: an empty result is one empty text.
            content: nonEmpty(toConverseContent(message.content, subject, 'a tool result')),
            ...(message.isError ? { status: 'error' as const } : {}),
          },
        },
      ];
  }
}

/** A tool result's content, never empty (the one empty text block it always had before). */
function nonEmpty(blocks: ToolResultContentBlock[]): ToolResultContentBlock[] {
  return blocks.length === 0 ? [{ text: '' }] : blocks;
}

/**
 * Splits neutral messages into Converse `system` blocks and `messages`. System messages are
 * hoisted wherever they stand (Converse has no system role in the conversation); tool results
 * travel as user `toolResult` blocks; consecutive same-role messages are merged, since Converse
 * requires user and assistant to alternate (parallel tool results become one user message).
 */
export function toConverseMessages(
  messages: ChatMessage[],
  subject: ErrorSubject,
): { system: SystemContentBlock[]; messages: Message[] } {
  const system: SystemContentBlock[] = [];
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content !== '') system.push({ text: message.content });
      if (message.content !== '' && message.cache !== undefined) system.push(cachePoint(message.cache));
      continue;
    }
    const content = toContentBlocks(message, subject);
    if (content.length === 0) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = out.at(-1);
    if (last?.role === role && last.content !== undefined) last.content.push(...content);
    else out.push({ role, content });
  }
  return { system, messages: out };
}

/** Maps our tool choice; `none` has no Converse equivalent and yields `undefined`. */
export function toConverseToolChoice(choice: ToolChoice | undefined): ConverseToolChoice | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

/** An empty object schema, for tools declared without parameters (Converse requires a schema). */
const NO_PARAMETERS: ConverseDocument = { type: 'object', properties: {} };

function hasToolBlocks(messages: Message[]): boolean {
  return messages.some((m) =>
    (m.content ?? []).some((b) => b.toolUse !== undefined || b.toolResult !== undefined),
  );
}

/**
 * Builds `toolConfig`. Converse has no `tool_choice: none`: with `none` the tools are left out,
 * unless the history holds toolUse/toolResult blocks, which Converse only accepts alongside a
 * `toolConfig` — then the tools are sent without a choice (the model may still call one).
 */
export function toConverseToolConfig(
  request: ChatRequest,
  messages: Message[],
): ToolConfiguration | undefined {
  const tools = request.tools ?? [];
  if (tools.length === 0) return undefined;
  if (request.toolChoice === 'none' && !hasToolBlocks(messages)) return undefined;
  const toolChoice = toConverseToolChoice(request.toolChoice);
  return {
    // A tool's cache breakpoint is a cachePoint entry right after it.
    tools: tools.flatMap((tool) => {
      const spec = {
        toolSpec: {
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: { json: (tool.parameters as ConverseDocument | undefined) ?? NO_PARAMETERS },
        },
      };
      return tool.cache === undefined ? [spec] : [spec, cachePoint(tool.cache)];
    }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
  };
}

/** Maps sampling options; `undefined` when none is set so the model's defaults apply. */
export function toInferenceConfig(request: ChatRequest): InferenceConfiguration | undefined {
  const config: InferenceConfiguration = {};
  if (request.maxTokens !== undefined) config.maxTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = request.stop;
  return Object.keys(config).length === 0 ? undefined : config;
}

/**
 * Builds the Converse body for `modelId` (the raw Bedrock id). Reasoning asked for goes in
 * `additionalModelRequestFields` (`bedrock-extras.ts`); a Claude budget with no output limit sets
 * `maxTokens` to the budget plus {@link ANSWER_TOKENS_AFTER_BUDGET}. Throws `ProviderError`
 * `invalid_request` when an assistant tool call carries arguments that are not a JSON object.
 */
export function toConverseBody(request: ChatRequest, modelId: string, subject: ErrorSubject): ConverseBody {
  const { system, messages } = toConverseMessages(request.messages, subject);
  const body: ConverseBody = { modelId, messages };
  if (system.length > 0) body.system = system;
  const inferenceConfig = toInferenceConfig(request);
  if (inferenceConfig !== undefined) body.inferenceConfig = inferenceConfig;
  const toolConfig = toConverseToolConfig(request, messages);
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  const reasoning = converseReasoningFields(request.reasoning, modelId, request.maxTokens);
  if (reasoning !== undefined) {
    body.additionalModelRequestFields = reasoning;
    const budget = (reasoning as { thinking?: { budget_tokens: number } }).thinking?.budget_tokens;
    if (budget !== undefined && request.maxTokens === undefined) {
      body.inferenceConfig = { ...body.inferenceConfig, maxTokens: budget + ANSWER_TOKENS_AFTER_BUDGET };
    }
  }
  return body;
}
