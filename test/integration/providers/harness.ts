/**
 * Helpers shared by the provider integration tests: call options, draining a stream, and
 * catching the one error type a `ChatModel` may throw.
 */
import { expect } from 'vitest';
import type { CallOptions, ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { startAttemptDeadline } from '../../../lambda/core/router/attempt-control.js';
import { systemTimer } from '../../../lambda/wiring/system-time.js';

/**
 * Call options as the router hands them out: the signal carries the attempt deadline of
 * `timeoutMs` (the router's one timer, on the real clock). Adapters have no timer of their own.
 */
export function attemptOptions(timeoutMs: number): CallOptions {
  const limits = { firstByteMs: timeoutMs, totalMs: timeoutMs, allowanceMs: 0 };
  return { signal: startAttemptDeadline(systemTimer, Date.now, limits, undefined).signal, timeoutMs };
}

/** Call options with a live signal and a generous timeout unless overridden. */
export function callOptions(overrides: Partial<CallOptions> = {}): CallOptions {
  return { signal: new AbortController().signal, timeoutMs: 10_000, ...overrides };
}

/** Drains a stream; on failure returns the events seen so far and the error. */
export async function drain(
  stream: AsyncIterable<ChatStreamEvent>,
): Promise<{ events: ChatStreamEvent[]; error: unknown }> {
  const events: ChatStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** Awaits a call that must fail and returns its error, asserting it is a `ProviderError`. */
export async function providerErrorOf(
  work: Promise<unknown> | (() => Promise<unknown>),
): Promise<ProviderError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected the call to fail');
}

/** The stream's error, asserting it is a `ProviderError`. */
export async function streamErrorOf(
  stream: AsyncIterable<ChatStreamEvent>,
): Promise<{ events: ChatStreamEvent[]; error: ProviderError }> {
  const { events, error } = await drain(stream);
  expect(error).toBeInstanceOf(ProviderError);
  return { events, error: error as ProviderError };
}

/** Concatenated text of the `text` events. */
export function textOf(events: ChatStreamEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.text : '')).join('');
}

/** Tool call arguments assembled from `tool_call` deltas, by index. */
export function toolArguments(events: ChatStreamEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'tool_call') out[e.index] = (out[e.index] ?? '') + (e.argumentsDelta ?? '');
  }
  return out;
}
