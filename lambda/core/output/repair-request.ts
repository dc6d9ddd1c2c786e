import type { ChatRequest } from '../chat/chat-model.js';

/** An answer that failed its check, and why. */
export interface RefusedAnswer {
  answer: string | null;
  errors: readonly string[];
}

/**
 * The request of a repair attempt: the original conversation, the refused answer as the
 * assistant's turn, and a user turn with the validation errors and the schema (seed 003: "put the
 * schema and the validation errors back and let it rewrite").
 */
export function repairRequest(chat: ChatRequest, refused: RefusedAnswer): ChatRequest {
  const format = chat.responseFormat;
  const schema = format?.type === 'json_schema' ? JSON.stringify(format.schema) : undefined;
  const lines = [
    schema === undefined
      ? 'Your previous answer was rejected: it must be one JSON object.'
      : 'Your previous answer was rejected: it must be JSON that matches the JSON schema below.',
    `Validation errors: ${refused.errors.join('; ')}`,
    ...(schema === undefined ? [] : [`JSON schema: ${schema}`]),
    'Answer again with only the JSON value: no code fence, no other text.',
  ];
  return {
    ...chat,
    messages: [
      ...chat.messages,
      { role: 'assistant', content: refused.answer ?? '' },
      { role: 'user', content: lines.join('\n') },
    ],
  };
}
