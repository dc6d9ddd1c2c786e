/**
 * Body builders of the Anthropic fake, in the shapes of the Messages API: the JSON message, the
 * server-sent event stream, and the error envelope.
 */
import { anthropicErrorType } from '../../doors/anthropic-messages/anthropic-errors.js';
import { type AnswerPlan, type FakeFinish, fakeSignature } from './fake-answer.js';
import type { Fault } from './fault.js';

/** Anthropic's error envelope. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string | undefined;
}

/** Identity of one answer. */
export interface AnthropicAnswerMeta {
  id: string;
  model: string;
  /** The request's sequence number (the signature of scripted reasoning). Default 0. */
  seq?: number | undefined;
}

const STOP_REASON: Record<FakeFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  guardrail: 'refusal',
  stop_sequence: 'stop_sequence',
};

/** Usage as the Messages API reports it: cached prompt tokens apart from `input_tokens`. */
function usageOf(plan: AnswerPlan, fault: Fault, outputTokens: number) {
  const read = fault.cacheReadTokens ?? 0;
  const write = fault.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, plan.promptTokens - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: outputTokens,
  };
}

/** The signed thinking block of a scripted `reasoning` and the redacted one of `redactedReasoning`, if any. */
function thinkingOf(meta: AnthropicAnswerMeta, fault: Fault): object[] {
  const blocks: object[] = [];
  if (fault.reasoning !== undefined) {
    blocks.push({ type: 'thinking', thinking: fault.reasoning, signature: fakeSignature(meta.seq ?? 0) });
  }
  if (fault.redactedReasoning !== undefined)
    blocks.push({ type: 'redacted_thinking', data: fault.redactedReasoning });
  return blocks;
}

function contentOf(plan: AnswerPlan): object[] {
  const { toolCall } = plan;
  if (toolCall) return [{ type: 'tool_use', id: toolCall.id, name: toolCall.name, input: toolCall.input }];
  return plan.text === '' ? [] : [{ type: 'text', text: plan.text, citations: null }];
}

/** A non-streaming `message`: the thinking block of a scripted `reasoning` first. */
export function messageBody(meta: AnthropicAnswerMeta, plan: AnswerPlan, fault: Fault): object {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [...thinkingOf(meta, fault), ...contentOf(plan)],
    stop_reason: STOP_REASON[plan.finish],
    stop_sequence: plan.stopSequence ?? null,
    usage: usageOf(plan, fault, plan.completionTokens),
  };
}

/** How a stream ends: normally, cut after N content deltas, or with an in-stream error event. */
export interface AnthropicStreamEnding {
  cutAfterChunks?: number | undefined;
  error?: AnthropicErrorBody | undefined;
}

const event = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * The event stream of an answer: `message_start`, one content block (`content_block_start`, a
 * `ping`, its deltas, `content_block_stop`), `message_delta` with the stop reason and output
 * usage, `message_stop`. With `cutAfterChunks` only the start and N deltas (then the error event).
 */
export function streamEvents(
  meta: AnthropicAnswerMeta,
  plan: AnswerPlan,
  fault: Fault,
  ending: AnthropicStreamEnding,
): string[] {
  const { toolCall } = plan;
  const message = { ...messageBody(meta, plan, fault), content: [], stop_reason: null, stop_sequence: null };
  const block = toolCall
    ? { type: 'tool_use', id: toolCall.id, name: toolCall.name, input: {} }
    : { type: 'text', text: '', citations: null };
  const frames = [event('message_start', { message: { ...message, usage: usageOf(plan, fault, 1) } })];
  // A scripted reasoning is block 0: its text in two deltas, then its signature; a redacted one follows whole.
  let at = 0;
  if (fault.reasoning !== undefined) {
    at += 1;
    const half = Math.ceil(fault.reasoning.length / 2);
    frames.push(
      event('content_block_start', {
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
      event('content_block_delta', {
        index: 0,
        delta: { type: 'thinking_delta', thinking: fault.reasoning.slice(0, half) },
      }),
      event('content_block_delta', {
        index: 0,
        delta: { type: 'thinking_delta', thinking: fault.reasoning.slice(half) },
      }),
      event('content_block_delta', {
        index: 0,
        delta: { type: 'signature_delta', signature: fakeSignature(meta.seq ?? 0) },
      }),
      event('content_block_stop', { index: 0 }),
    );
  }
  if (fault.redactedReasoning !== undefined) {
    const redacted = { type: 'redacted_thinking', data: fault.redactedReasoning };
    frames.push(
      event('content_block_start', { index: at, content_block: redacted }),
      event('content_block_stop', { index: at }),
    );
    at += 1;
  }
  frames.push(event('content_block_start', { index: at, content_block: block }), event('ping', {}));
  const count =
    ending.cutAfterChunks === undefined
      ? plan.chunks.length
      : Math.min(ending.cutAfterChunks, plan.chunks.length);
  for (let i = 0; i < count; i++) {
    const piece = plan.chunks[i] as string;
    const delta = toolCall
      ? { type: 'input_json_delta', partial_json: piece }
      : { type: 'text_delta', text: piece };
    frames.push(event('content_block_delta', { index: at, delta }));
  }
  if (ending.cutAfterChunks !== undefined) {
    if (ending.error) frames.push(`event: error\ndata: ${JSON.stringify(ending.error)}\n\n`);
    return frames;
  }
  frames.push(event('content_block_stop', { index: at }));
  frames.push(
    event('message_delta', {
      delta: { stop_reason: STOP_REASON[plan.finish], stop_sequence: plan.stopSequence ?? null },
      usage: { output_tokens: plan.completionTokens },
    }),
  );
  frames.push(event('message_stop', {}));
  return frames;
}

const DEFAULT_MESSAGE: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low to access the Anthropic API.',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of requests has exceeded your per-minute rate limit (fake).',
  api_error: 'Internal server error',
  timeout_error: 'Request timed out',
  overloaded_error: 'Overloaded',
};

/** The error envelope for a scripted `status` ≥ 400 (or an in-stream error). */
export function anthropicErrorBody(status: number, model: string, fault: Fault, requestId?: string) {
  const type = fault.errorCode ?? anthropicErrorType(status);
  const fallback = type === 'not_found_error' ? `model: ${model}` : (DEFAULT_MESSAGE[type] ?? 'Error');
  const body: AnthropicErrorBody = {
    type: 'error',
    error: { type, message: fault.errorMessage ?? fallback },
  };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/** An error envelope for a request the fake itself refuses. */
export function anthropicInvalidRequest(message: string): AnthropicErrorBody {
  return { type: 'error', error: { type: 'invalid_request_error', message } };
}

/** A 200 body that is not valid JSON, or valid JSON of the wrong shape. */
export function malformedMessage(kind: 'unparseable' | 'schema', meta: AnthropicAnswerMeta): string {
  return kind === 'schema'
    ? JSON.stringify({ id: meta.id, type: 'message', role: 'assistant', content: null })
    : `{"id":${JSON.stringify(meta.id)},"type":"message","content":[{"type":"text","text":`;
}

/** Stream events whose data is not JSON, or JSON of the wrong shape. */
export function malformedEvents(kind: 'unparseable' | 'schema'): string[] {
  return kind === 'schema'
    ? ['event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":"oops"}\n\n']
    : ['event: message_start\ndata: {"type":"message_start","message":\n\n'];
}
