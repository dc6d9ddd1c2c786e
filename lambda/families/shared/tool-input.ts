import type { ToolCall } from '../../core/chat/chat-model.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import { isRecord, type JsonRecord } from './json-shape.js';
import type { ErrorSubject } from './malformed-response.js';

/**
 * Parses a tool call's JSON arguments into the object the families that take tool inputs as
 * objects want (Converse's `toolUse.input`, a Messages `tool_use` block's `input`). Empty text
 * means "no arguments" (models emit it for parameterless tools). Anything that is not a JSON
 * object is the caller's error, so it becomes `invalid_request` (no fallback hides it).
 */
export function toolInput(call: ToolCall, subject: ErrorSubject): JsonRecord {
  if (call.arguments.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) {
    throw new ProviderError({
      ...subject,
      failureClass: 'invalid_request',
      message: `assistant tool call ${call.id} has arguments that are not a JSON object`,
    });
  }
  return parsed;
}
