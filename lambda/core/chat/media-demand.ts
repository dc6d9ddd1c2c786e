/**
 * How much of a request's JSON size its images really weigh (docs/concepts.md#how-a-reservation-works).
 * The admission reservation estimates input tokens from the messages' JSON characters; an image's
 * base64 text would count a 1 MB picture as some 300 000 tokens, while providers bill an image
 * at a bounded size (Anthropic and Bedrock scale it to at most ~1600 tokens, OpenAI's tiles stay
 * near that). So each image counts as {@link IMAGE_INPUT_CHARS} characters instead of its data.
 * PDFs keep their size: their tokens grow with their pages, as their bytes do.
 */
import type { ChatMessage } from './chat-model.js';
import { partsOf } from './content-parts.js';

/** Characters one image counts as: 1600 tokens at 4 characters a token. */
export const IMAGE_INPUT_CHARS = 6_400;

/**
 * What to add to the messages' JSON size so that each image counts {@link IMAGE_INPUT_CHARS}
 * characters rather than its inline data (negative for large inline images, positive for images
 * by URL, 0 without images).
 */
export function imageCharsAdjustment(messages: readonly ChatMessage[]): number {
  let adjustment = 0;
  for (const message of messages) {
    if (message.role !== 'user' && message.role !== 'tool') continue;
    for (const part of partsOf(message.content)) {
      if (part.type !== 'image') continue;
      const inline = part.source.kind === 'data' ? part.source.data.length : 0;
      adjustment += IMAGE_INPUT_CHARS - inline;
    }
  }
  return adjustment;
}
