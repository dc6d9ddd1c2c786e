/** Neutral message content in the Chat Completions shapes (`image_url` and `file` parts). */
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
} from 'openai/resources/chat/completions';
import type { ContentPart, MessageContent } from '../../core/chat/chat-model.js';
import { hasMedia, textOf } from '../../core/chat/content-parts.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { dataUrl, uncarriedPart } from '../shared/uncarried-part.js';

/**
 * One part as a Chat Completions content part: an image as `image_url` (its http(s) URL, or a
 * `data:` URL of its bytes), a PDF as `file` with `file_data` (a `data:` URL) and its `filename`.
 * A document by URL has no Chat Completions form (`file` takes data or an uploaded file id).
 */
export function toOpenAIPart(part: ContentPart, subject: ErrorSubject): ChatCompletionContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const { source } = part;
      const url = source.kind === 'url' ? source.url : dataUrl(source.mediaType, source.data);
      return { type: 'image_url', image_url: { url } };
    }
    case 'document': {
      const { source } = part;
      if (source.kind === 'url') throw uncarriedPart(subject, part, 'a user message');
      return {
        type: 'file',
        file: {
          file_data: dataUrl(source.mediaType, source.data),
          ...(part.name === undefined ? {} : { filename: part.name }),
        },
      };
    }
  }
}

/** A user message's content: plain text stays a string, anything with media becomes parts. */
export function toOpenAIUserContent(
  content: MessageContent,
  subject: ErrorSubject,
): string | ChatCompletionContentPart[] {
  if (!hasMedia(content)) return textOf(content);
  return (content as ContentPart[]).map((part) => toOpenAIPart(part, subject));
}

/**
 * A tool message's content: Chat Completions takes text only there (a tool result with media goes
 * to routes with `toolResultMedia`; the router never sends one here).
 */
export function toOpenAIToolContent(
  content: MessageContent,
  subject: ErrorSubject,
): string | ChatCompletionContentPartText[] {
  if (typeof content !== 'string') {
    const media = content.find((part) => part.type !== 'text');
    if (media) throw uncarriedPart(subject, media, 'a tool result');
  }
  return textOf(content);
}
