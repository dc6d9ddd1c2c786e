/** Neutral message content as Messages API blocks (`image` and `document`, base64 or url source). */
import type {
  Base64ImageSource,
  DocumentBlockParam,
  ImageBlockParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ContentPart, MessageContent } from '../../core/chat/chat-model.js';
import { hasMedia, partsOf, textOf } from '../../core/chat/content-parts.js';

/** A block of user content or of a tool result. */
export type AnthropicContentBlock = TextBlockParam | ImageBlockParam | DocumentBlockParam;

/**
 * One part as a Messages block: an image as `image`, a PDF as `document` (its name as `title`),
 * each with a `base64` source for inline bytes or a `url` source the API fetches. Media types were
 * checked at the door (docs/http-api.md#content-parts).
 */
export function toAnthropicBlock(part: ContentPart): AnthropicContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const { source } = part;
      if (source.kind === 'url') return { type: 'image', source: { type: 'url', url: source.url } };
      const mediaType = source.mediaType as Base64ImageSource['media_type'];
      return { type: 'image', source: { type: 'base64', media_type: mediaType, data: source.data } };
    }
    case 'document': {
      const { source } = part;
      const title = part.name === undefined ? {} : { title: part.name };
      if (source.kind === 'url')
        return { type: 'document', source: { type: 'url', url: source.url }, ...title };
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: source.data },
        ...title,
      };
    }
  }
}

/** Content as blocks; empty text parts are dropped, as the API rejects empty text. */
export function toAnthropicBlocks(content: MessageContent): AnthropicContentBlock[] {
  return partsOf(content)
    .filter((part) => part.type !== 'text' || part.text !== '')
    .map(toAnthropicBlock);
}

/** A tool result's content: plain text as a string (as before), anything with media as blocks. */
export function toAnthropicToolResultContent(content: MessageContent): string | AnthropicContentBlock[] {
  return hasMedia(content) ? toAnthropicBlocks(content) : textOf(content);
}
