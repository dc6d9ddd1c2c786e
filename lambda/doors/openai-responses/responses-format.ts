/** Answers in the shapes of OpenAI's Responses API, for the `/v1/responses` front door. */
import type { ChatResult, FinishReason, ToolCall, Usage } from '../../core/chat/chat-model.js';
import type { ResponsesBody } from './responses-request-schema.js';

/** What every object of one answer shares: the response id, `created_at` (seconds), the answering model key. */
export interface ResponseIds {
  id: string;
  createdAt: number;
  model: string;
}

/** The request fields a response object echoes (as the API does). */
export type EchoedRequest = Pick<
  ResponsesBody,
  | 'instructions'
  | 'max_output_tokens'
  | 'temperature'
  | 'top_p'
  | 'tools'
  | 'tool_choice'
  | 'text'
  | 'metadata'
  | 'user'
  | 'reasoning'
>;

/** An output `message` item with one `output_text` part. */
export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: { type: 'output_text'; text: string; annotations: []; logprobs: [] }[];
}

/** An output `function_call` item. */
export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = MessageItem | FunctionCallItem;

/** `status` and `incomplete_details` of a finished answer: a cut answer is `incomplete`, with OpenAI's reason. */
export function finishedStatus(reason: FinishReason) {
  if (reason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } as const;
  if (reason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } } as const;
  return { status: 'completed', incomplete_details: null } as const;
}

/** The Responses `usage`: cache reads as `input_tokens_details.cached_tokens`, as OpenAI reports them. */
export function responsesUsage(usage: Usage | undefined) {
  const input = usage?.inputTokens ?? 0;
  const output = usage?.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage?.cacheReadTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage?.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}

/** The text part of a message item. */
export const outputText = (text: string) => ({
  type: 'output_text' as const,
  text,
  annotations: [] as [],
  logprobs: [] as [],
});

/** The id of the `n`-th output item of a response (`msg_…` or `fc_…`), unique within the gateway's request ids. */
export function itemId(ids: ResponseIds, kind: 'msg' | 'fc', n: number): string {
  return `${kind}_${ids.id.slice('resp_'.length)}_${n}`;
}

export function functionCallItem(
  ids: ResponseIds,
  n: number,
  call: ToolCall,
  status: FunctionCallItem['status'],
): FunctionCallItem {
  return {
    type: 'function_call',
    id: itemId(ids, 'fc', n),
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
    status,
  };
}

/** The output items of a plain answer: its text as one message (when there is text), then one item per tool call. */
export function outputItems(result: ChatResult, ids: ResponseIds): OutputItem[] {
  const items: OutputItem[] = [];
  const done = finishedStatus(result.finishReason).status;
  if (result.content !== null && result.content !== '') {
    items.push({
      type: 'message',
      id: itemId(ids, 'msg', 0),
      status: done,
      role: 'assistant',
      content: [outputText(result.content)],
    });
  }
  for (const call of result.toolCalls) items.push(functionCallItem(ids, items.length, call, 'completed'));
  return items;
}

/** A `response` object: `status`, `output` and `usage` as given, the rest echoed from the request. */
export function responseBody(
  ids: ResponseIds,
  request: EchoedRequest,
  state: {
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
    output: OutputItem[];
    usage: Usage | undefined | null;
    incomplete_details?: { reason: string } | null;
    error?: { code: string; message: string } | null;
  },
) {
  return {
    id: ids.id,
    object: 'response',
    created_at: ids.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: ids.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: state.usage === null ? null : responsesUsage(state.usage),
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** The `response` object of a plain answer. */
export function completedBody(result: ChatResult, ids: ResponseIds, request: EchoedRequest) {
  const { status, incomplete_details } = finishedStatus(result.finishReason);
  return responseBody(ids, request, {
    status,
    incomplete_details,
    output: outputItems(result, ids),
    usage: result.usage,
  });
}
