/** Answers in the shapes of Anthropic's Messages API, for the `/v1/messages` front door. */
import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ReasoningBlock,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';

/** What every event of one answer shares: the message id and the answering model key. */
export interface MessageIds {
  id: string;
  model: string;
}

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  error: 'end_turn',
  other: 'end_turn',
};

/** Anthropic's `stop_reason` for a finish reason (a stop sequence reads as `end_turn`: the neutral answer does not say which). */
export function anthropicStopReason(reason: FinishReason): string {
  return STOP_REASON[reason];
}

/** Anthropic's `usage`: cached input apart from `input_tokens`, as Anthropic counts it. */
export function anthropicUsage(usage: Usage | undefined) {
  const read = usage?.cacheReadTokens ?? 0;
  const write = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - read - write),
    output_tokens: usage?.outputTokens ?? 0,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

/**
 * A tool call's arguments as the `input` object Anthropic promises. Text that is not a JSON object
 * (an upstream that broke the protocol) is kept under `arguments` rather than dropped.
 */
export function toolInput(call: Pick<ToolCall, 'arguments'>): Record<string, unknown> {
  if (call.arguments.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // not JSON: kept as text below
  }
  return { arguments: call.arguments };
}

/**
 * A reasoning block as Messages writes it: `thinking` with its signature (empty when the route
 * did not sign it: such a block is shown, never accepted back by Anthropic), or `redacted_thinking`.
 */
function thinkingBlock(block: ReasoningBlock): object {
  return block.type === 'redacted'
    ? { type: 'redacted_thinking', data: block.data }
    : { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
}

/**
 * A `message` object: the thinking blocks, the text block (when there is text), then one
 * `tool_use` block per call.
 */
export function messageBody(result: ChatResult, ids: MessageIds) {
  const content: object[] = (result.reasoning ?? []).map(thinkingBlock);
  if (result.content !== null && result.content !== '') content.push({ type: 'text', text: result.content });
  for (const call of result.toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) });
  }
  return {
    id: ids.id,
    type: 'message',
    role: 'assistant',
    model: ids.model,
    content,
    stop_reason: anthropicStopReason(result.finishReason),
    stop_sequence: null,
    usage: anthropicUsage(result.usage),
  };
}

/** One Messages stream event: its `event:` name and its data (which repeats the name as `type`). */
export interface MessagesEvent {
  type: string;
  data: Record<string, unknown>;
}

/** Turns our stream events into Messages events; one instance per stream. */
export interface MessagesEventWriter {
  /** `message_start`. */
  start(): MessagesEvent[];
  /** One upstream event: content blocks are opened and closed around it as needed. */
  push(event: ChatStreamEvent): MessagesEvent[];
  /** The end: the open block closed, `message_delta` with the stop reason and usage, `message_stop`. */
  end(usage: Usage | undefined): MessagesEvent[];
}

const ev = (type: string, data: Record<string, unknown> = {}): MessagesEvent => ({
  type,
  data: { type, ...data },
});

/**
 * Creates the writer. Blocks are numbered in the order they open; text after a tool call opens a
 * new text block; a tool call's deltas go to the block its first event opened. The finish
 * reason and usage only arrive at the end, so `message_start` reports zero usage and the final
 * counts travel in `message_delta` (input included, as the Messages API allows).
 */
export function createMessagesEventWriter(ids: MessageIds): MessagesEventWriter {
  return new BlockWriter(ids);
}

/** The writer's state: the open block, the blocks opened so far, and the finish reason seen. */
class BlockWriter implements MessagesEventWriter {
  private open: { index: number; kind: 'text' | 'tool' | 'thinking' } | undefined;
  private blocks = 0;
  private readonly toolBlocks = new Map<number, number>();
  private finish: FinishReason = 'stop';
  private readonly ids: MessageIds;

  constructor(ids: MessageIds) {
    this.ids = ids;
  }

  start(): MessagesEvent[] {
    const empty = messageBody({ content: null, toolCalls: [], finishReason: 'stop' }, this.ids);
    return [ev('message_start', { message: { ...empty, stop_reason: null } })];
  }

  push(event: ChatStreamEvent): MessagesEvent[] {
    if (event.type === 'finish') {
      this.finish = event.finishReason;
      return [];
    }
    if (event.type === 'tool_call') return this.toolEvents(event);
    if (event.type === 'reasoning') return this.reasoningEvents(event);
    const events = this.open?.kind === 'text' ? [] : this.opening('text', { type: 'text', text: '' });
    const delta = { type: 'text_delta', text: event.text };
    events.push(ev('content_block_delta', { index: this.blocks - 1, delta }));
    return events;
  }

  end(usage: Usage | undefined): MessagesEvent[] {
    return [
      ...this.close(),
      ev('message_delta', {
        delta: { stop_reason: anthropicStopReason(this.finish), stop_sequence: null },
        usage: anthropicUsage(usage),
      }),
      ev('message_stop'),
    ];
  }

  private close(): MessagesEvent[] {
    if (this.open === undefined) return [];
    const stop = ev('content_block_stop', { index: this.open.index });
    this.open = undefined;
    return [stop];
  }

  /**
   * Reasoning text goes to the open thinking block (opening one when needed), a signature signs
   * and closes it, a redacted block opens and closes at once.
   */
  private reasoningEvents(event: Extract<ChatStreamEvent, { type: 'reasoning' }>): MessagesEvent[] {
    if (event.redacted !== undefined) {
      const events = this.opening('thinking', { type: 'redacted_thinking', data: event.redacted });
      return [...events, ...this.close()];
    }
    const events =
      this.open?.kind === 'thinking'
        ? []
        : this.opening('thinking', { type: 'thinking', thinking: '', signature: '' });
    const index = this.blocks - 1;
    if (event.text)
      events.push(
        ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: event.text } }),
      );
    if (event.signature !== undefined) {
      events.push(
        ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: event.signature } }),
      );
      events.push(...this.close());
    }
    return events;
  }

  private opening(kind: 'text' | 'tool' | 'thinking', block: object): MessagesEvent[] {
    const events = this.close();
    this.open = { index: this.blocks++, kind };
    events.push(ev('content_block_start', { index: this.open.index, content_block: block }));
    return events;
  }

  private toolEvents(event: Extract<ChatStreamEvent, { type: 'tool_call' }>): MessagesEvent[] {
    const events: MessagesEvent[] = [];
    let index = this.toolBlocks.get(event.index);
    if (index === undefined) {
      const id = event.id ?? `toolu_${this.ids.id}_${event.index}`;
      events.push(...this.opening('tool', { type: 'tool_use', id, name: event.name ?? '', input: {} }));
      index = this.blocks - 1;
      this.toolBlocks.set(event.index, index);
    }
    if (event.argumentsDelta) {
      const delta = { type: 'input_json_delta', partial_json: event.argumentsDelta };
      events.push(ev('content_block_delta', { index, delta }));
    }
    return events;
  }
}
