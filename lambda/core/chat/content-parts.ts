/** Reading a message's content whether it is plain text or parts (docs/http-api.md#content-parts). */
import type { ContentPart, MessageContent } from './chat-model.js';

/** The content as parts: a string is one text part (none when empty). */
export function partsOf(content: MessageContent): ContentPart[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** The text of the content: a string as is, parts' text joined without separator (media left out). */
export function textOf(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** True when the content holds an image or a document. */
export function hasMedia(content: MessageContent): boolean {
  return typeof content !== 'string' && content.some((part) => part.type !== 'text');
}

/**
 * Parts as plain text when they are all text (joined), else the parts unchanged: a family sends
 * text-only content in its simplest shape.
 */
export function simplestContent(content: MessageContent): MessageContent {
  return hasMedia(content) ? content : textOf(content);
}
