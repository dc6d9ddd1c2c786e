/**
 * One upstream event of a committed stream as the caller's chunk text, counted as output and, when
 * the stream may be continued, kept (a continuation's text passes the seam first).
 */
import type { SseState, StreamEvent } from './sse-state.js';

/**
 * The event as a chunk; a `finish` event's usage is kept for the usage chunk and the ledger. What
 * goes out is counted (an interrupted stream is billed for it) and, when the stream may be
 * continued, its text kept; a continuation's text passes the seam first.
 */
export function eventText(state: SseState, event: StreamEvent): string {
  const { format } = state.options;
  if (event.type === 'finish') {
    state.usage = event.usage ?? state.usage;
    return heldText(state) + format.event(event);
  }
  if (event.type === 'tool_call') {
    state.toolCall = true;
    state.outputChars += (event.name?.length ?? 0) + (event.argumentsDelta?.length ?? 0);
    return heldText(state) + format.event(event);
  }
  if (event.type === 'reasoning') {
    // Reasoning is output the caller is billed for, but never part of a continued answer's text.
    state.outputChars += event.text?.length ?? 0;
    return heldText(state) + format.event(event);
  }
  const text = state.seam ? state.seam.push(event.text) : event.text;
  return text === '' ? '' : format.event(sent(state, event, text));
}

/**
 * The text event that goes out with `text` (what the seam let through of `event`), counted as sent
 * to the caller; the event itself, with its log probabilities, when the seam took nothing off.
 */
function sent(state: SseState, event: Extract<StreamEvent, { type: 'text' }>, text: string): StreamEvent {
  state.outputChars += text.length;
  if (state.route.resume) state.text += text;
  return text === event.text ? event : { type: 'text', text };
}

/** The text a continuation's seam still holds, as a chunk ('' when none): it goes before any other event. */
export function heldText(state: SseState): string {
  const held = state.seam?.flush() ?? '';
  state.seam = undefined;
  return held === '' ? '' : state.options.format.event(sent(state, { type: 'text', text: held }, held));
}
