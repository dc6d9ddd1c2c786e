import type { ChatRequest } from '../chat/chat-model.js';

/**
 * The request with the pipeline's system-prompt suffix (docs/design.md#output-alignment): appended
 * to the last system message, or a system message of its own at the start when there is none.
 */
export function withSystemSuffix(chat: ChatRequest, suffix: string | undefined): ChatRequest {
  if (suffix === undefined) return chat;
  const messages = [...chat.messages];
  const last = messages.findLastIndex((m) => m.role === 'system');
  const system = last >= 0 ? messages[last] : undefined;
  if (system?.role === 'system')
    messages[last] = { role: 'system', content: `${system.content}\n\n${suffix}` };
  else messages.unshift({ role: 'system', content: suffix });
  return { ...chat, messages };
}
