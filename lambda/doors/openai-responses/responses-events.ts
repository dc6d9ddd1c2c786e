/**
 * Our stream events as the Responses API's streaming events, numbered by `sequence_number`:
 * `response.created` and `response.in_progress`; per output item `response.output_item.added`,
 * for a message `response.content_part.added`, `response.output_text.delta`…,
 * `response.output_text.done`, `response.content_part.done`, for a function call
 * `response.function_call_arguments.delta`…, `response.function_call_arguments.done`; then
 * `response.output_item.done`; at the end `response.completed` (or `response.incomplete` for a cut
 * answer). Items follow one another: an item is done before the next one is added.
 */
import type { ChatStreamEvent, FinishReason, Usage } from '../../core/chat/chat-model.js';
import {
  type EchoedRequest,
  type FunctionCallItem,
  finishedStatus,
  functionCallItem,
  itemId,
  type MessageItem,
  type OutputItem,
  outputText,
  type ResponseIds,
  responseBody,
} from './responses-format.js';

/** One streaming event: its `event:` name and its data (which repeats the name as `type`). */
export interface ResponsesEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The code of the failure that ends a committed stream, in `error` and `response.failed`. */
export const STREAM_INTERRUPTED = 'stream_interrupted';

type ItemStatus = MessageItem['status'];

/** Turns one answer's stream events into Responses events; one instance per stream. */
export class ResponsesEventWriter {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  /** The output index of the item being written, if one is open. */
  private open: number | undefined;
  /** Output index of each tool call, by the call's stream index. */
  private readonly calls = new Map<number, number>();
  private finish: FinishReason = 'stop';

  private readonly ids: ResponseIds;
  private readonly request: EchoedRequest;

  constructor(ids: ResponseIds, request: EchoedRequest) {
    this.ids = ids;
    this.request = request;
  }

  /** `response.created` and `response.in_progress`, with no output yet. */
  start(): ResponsesEvent[] {
    const response = this.response('in_progress', null);
    return [this.ev('response.created', { response }), this.ev('response.in_progress', { response })];
  }

  /** One upstream event: items are added and finished around it as needed. */
  push(event: ChatStreamEvent): ResponsesEvent[] {
    if (event.type === 'finish') {
      this.finish = event.finishReason;
      return [];
    }
    if (event.type === 'tool_call') return this.callEvents(event);
    // Reasoning is not returned on this door (no reasoning items; docs/http-api.md), only counted.
    if (event.type === 'reasoning') return [];
    const events: ResponsesEvent[] = [];
    let index = this.open;
    if (index === undefined || this.output[index]?.type !== 'message') {
      events.push(...this.close('completed'));
      index = this.output.length;
      events.push(...this.openMessage(index));
    }
    const item = this.output[index] as MessageItem;
    const part = item.content[0] ?? outputText('');
    part.text += event.text;
    events.push(
      this.ev('response.output_text.delta', { ...this.at(item, index), delta: event.text, logprobs: [] }),
    );
    return events;
  }

  /** The clean end: the open item finished, then `response.completed` (or `.incomplete`) with the usage. */
  end(usage: Usage | undefined): ResponsesEvent[] {
    const { status, incomplete_details } = finishedStatus(this.finish);
    const events = this.close(status);
    const response = this.response(status, usage ?? null, { incomplete_details });
    events.push(this.ev(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
    return events;
  }

  /**
   * A failure after the commit: an `error` event (its fields flat, as documented, and once more
   * under `error`, which openai-node raises as an `APIError`), then `response.failed` carrying the
   * output so far and the error, which the Vercel AI SDK reads.
   */
  fail(message: string): ResponsesEvent[] {
    const error = { code: STREAM_INTERRUPTED, message };
    const nested = { type: 'api_error', ...error, param: null };
    return [
      this.ev('error', { ...error, param: null, error: nested }),
      this.ev('response.failed', { response: this.response('failed', null, { error }) }),
    ];
  }

  private ev(type: string, data: Record<string, unknown>): ResponsesEvent {
    return { type, data: { type, sequence_number: this.sequence++, ...data } };
  }

  private response(status: Parameters<typeof responseBody>[2]['status'], usage: Usage | null, extra = {}) {
    // A snapshot: the items are copied, later deltas do not change an event already written.
    return responseBody(this.ids, this.request, {
      status,
      output: structuredClone(this.output),
      usage,
      ...extra,
    });
  }

  private at(item: OutputItem, index: number) {
    return item.type === 'message'
      ? { item_id: item.id, output_index: index, content_index: 0 }
      : { item_id: item.id, output_index: index };
  }

  private openMessage(index: number): ResponsesEvent[] {
    const item: MessageItem = {
      type: 'message',
      id: itemId(this.ids, 'msg', index),
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    this.output.push(item);
    this.open = index;
    const added = this.ev('response.output_item.added', { output_index: index, item: structuredClone(item) });
    item.content.push(outputText(''));
    return [added, this.ev('response.content_part.added', { ...this.at(item, index), part: outputText('') })];
  }

  private callEvents(event: Extract<ChatStreamEvent, { type: 'tool_call' }>): ResponsesEvent[] {
    const events: ResponsesEvent[] = [];
    let index = this.calls.get(event.index);
    if (index === undefined) {
      events.push(...this.close('completed'));
      index = this.output.length;
      const callId = event.id ?? `call_${this.ids.id.slice('resp_'.length)}_${event.index}`;
      const item = functionCallItem(
        this.ids,
        index,
        { id: callId, name: event.name ?? '', arguments: '' },
        'in_progress',
      );
      this.output.push(item);
      this.calls.set(event.index, index);
      this.open = index;
      events.push(this.ev('response.output_item.added', { output_index: index, item: { ...item } }));
    }
    const item = this.output[index] as FunctionCallItem;
    if (event.argumentsDelta) {
      item.arguments += event.argumentsDelta;
      events.push(
        this.ev('response.function_call_arguments.delta', {
          ...this.at(item, index),
          delta: event.argumentsDelta,
        }),
      );
    }
    return events;
  }

  /** Finishes the open item, if any, with `status`. */
  private close(status: ItemStatus): ResponsesEvent[] {
    if (this.open === undefined) return [];
    const index = this.open;
    this.open = undefined;
    const item = this.output[index] as OutputItem;
    item.status = status;
    const where = this.at(item, index);
    if (item.type === 'function_call') {
      return [
        this.ev('response.function_call_arguments.done', {
          ...where,
          name: item.name,
          arguments: item.arguments,
        }),
        this.ev('response.output_item.done', { output_index: index, item: structuredClone(item) }),
      ];
    }
    const part = item.content[0] ?? outputText('');
    return [
      this.ev('response.output_text.done', { ...where, text: part.text, logprobs: [] }),
      this.ev('response.content_part.done', { ...where, part: structuredClone(part) }),
      this.ev('response.output_item.done', { output_index: index, item: structuredClone(item) }),
    ];
  }
}
