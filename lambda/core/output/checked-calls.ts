import type { ChatRequest, ChatResult, ChatStreamEvent } from '../chat/chat-model.js';
import { FAILURE_POLICY } from '../failures/failure-class.js';
import { ProviderError } from '../failures/provider-error.js';
import { SchemaInvalidError } from '../failures/schema-invalid-error.js';
import type { AttemptCall } from '../router/route-types.js';
import { checkJsonAnswer, type JsonCheck } from './json-answer.js';
import { type RefusedAnswer, repairRequest } from './repair-request.js';

/** The repair policy of one request (`structuredOutput`, docs/design.md#structured-output). */
export interface RepairPolicy {
  repairAttempts: number;
  repairWith: 'same' | 'next';
}

/**
 * Plain answers checked before the commit. A refused answer is a `schema_invalid` attempt; the
 * next attempt, while repairs are left, carries the refused answer, the errors and the schema.
 * An answer that calls tools is not the final answer and is not checked. `callerInput` is the
 * request as the caller wrote it (error classification).
 */
export function checkedGenerate(
  chat: ChatRequest,
  callerInput: ChatRequest,
  check: JsonCheck,
  policy: RepairPolicy,
): AttemptCall<ChatResult> {
  let repairsLeft = policy.repairAttempts;
  let refused: RefusedAnswer | undefined;
  return async (model, options) => {
    const pending = refused;
    const repairing = pending !== undefined && repairsLeft > 0;
    if (repairing) repairsLeft -= 1;
    refused = undefined;
    let result: ChatResult;
    try {
      result = await model.generate(repairing ? repairRequest(chat, pending) : chat, {
        ...options,
        callerInput,
      });
    } catch (error) {
      // A model with no key in this process sent nothing: the repair waits for the next one.
      if (error instanceof ProviderError && FAILURE_POLICY[error.failureClass].local) {
        refused = pending;
        if (repairing) repairsLeft += 1;
      }
      throw error;
    }
    if (result.toolCalls.length > 0) return result;
    const checked = checkJsonAnswer(result.content, check);
    if (checked.ok) return { ...result, content: checked.content };
    refused = { answer: result.content, errors: checked.errors };
    throw new SchemaInvalidError({
      provider: model.provider,
      model: model.key,
      errors: checked.errors,
      usage: result.usage,
      repairSameModel: policy.repairWith === 'same' && repairsLeft > 0,
    });
  };
}

/**
 * A committed stream checked at its end: the text already went out, so nothing is repaired; an
 * answer that fails the check ends with `schema_invalid` instead of its finish event, and the
 * caller gets the stream's explicit error event and no `[DONE]` (docs/design.md#structured-output).
 */
export async function* checkedStream(
  first: ChatStreamEvent,
  rest: AsyncIterator<ChatStreamEvent>,
  check: JsonCheck,
  who: { provider: string; model: string },
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  let text = first.type === 'text' ? first.text : '';
  let calledTools = first.type === 'tool_call';
  let checked = false;
  const verify = () => {
    checked = true;
    if (calledTools) return;
    const answer = checkJsonAnswer(text, check);
    if (!answer.ok) throw new SchemaInvalidError({ ...who, errors: answer.errors, repairSameModel: false });
  };
  try {
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      const event = next.value;
      if (event.type === 'text') text += event.text;
      else if (event.type === 'tool_call') calledTools = true;
      else if (event.type === 'finish') verify();
      yield event;
    }
    // A stream whose finish came first (or never came) is checked before its [DONE].
    if (!checked) verify();
  } finally {
    await rest.return?.();
  }
}
