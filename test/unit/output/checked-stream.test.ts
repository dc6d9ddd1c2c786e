import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { SchemaInvalidError } from '../../../lambda/core/failures/schema-invalid-error.js';
import { checkedStream } from '../../../lambda/core/output/checked-calls.js';

const OBJECT = { type: 'json_object' as const };
const WHO = { provider: 'fake', model: 'a' };
const FINISH: ChatStreamEvent = { type: 'finish', finishReason: 'stop' };
const text = (t: string): ChatStreamEvent => ({ type: 'text', text: t });

/** Drains the checked rest of a stream: the events it let through, and what it threw. */
async function drain(events: ChatStreamEvent[]) {
  const [first, ...rest] = events;
  if (!first) throw new Error('a stream has a first event');
  let returned = false;
  const iterator = rest[Symbol.iterator]();
  const upstream: AsyncIterator<ChatStreamEvent> = {
    next: async () => iterator.next(),
    return: async () => {
      returned = true;
      return { done: true, value: undefined };
    },
  };
  const passed: ChatStreamEvent[] = [];
  try {
    for await (const event of checkedStream(first, upstream, OBJECT, WHO)) passed.push(event);
    return { passed, error: undefined, returned };
  } catch (error) {
    return { passed, error, returned };
  }
}

describe('a committed stream checked at its end', () => {
  it('lets every event through when the text, first event included, is the JSON asked for', async () => {
    const { passed, error } = await drain([text('{"ok"'), text(':true}'), FINISH]);
    expect(error).toBeUndefined();
    expect(passed).toEqual([text(':true}'), FINISH]);
  });

  it('withholds the finish of text that fails and throws schema_invalid instead', async () => {
    const { passed, error, returned } = await drain([text('{"ok":'), FINISH]);
    expect(passed).toEqual([]);
    expect(error).toBeInstanceOf(SchemaInvalidError);
    expect((error as SchemaInvalidError).errors).toEqual(['the answer is not valid JSON']);
    expect(returned).toBe(true);
  });

  it('checks an empty stream whose finish came first, before its end', async () => {
    const { error } = await drain([FINISH]);
    expect((error as SchemaInvalidError).errors).toEqual(['the answer is empty']);
  });

  it('does not check a stream that calls tools', async () => {
    const call: ChatStreamEvent = { type: 'tool_call', index: 0, id: 't', name: 'f', argumentsDelta: '{}' };
    const { error } = await drain([call, { type: 'finish', finishReason: 'tool_calls' }]);
    expect(error).toBeUndefined();
  });
});
