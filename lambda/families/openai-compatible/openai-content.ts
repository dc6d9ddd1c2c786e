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
 * What a failed tool result's text starts with: Chat Completions has no `is_error`, so the failure
 * travels in words the model reads (docs/http-api.md#tool-result-errors), never dropped silently.
 */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/**
 * A tool message's content: Chat Completions takes text only there (a tool result with media goes
 * to routes with `toolResultMedia`; the router never sends one here). A failed result
 * (`isError`) starts with {@link TOOL_ERROR_PREFIX}.
 */
export function toOpenAIToolContent(
  content: MessageContent,
  subject: ErrorSubject,
  isError = false,
): string | ChatCompletionContentPartText[] {
  if (typeof content !== 'string') {
    const media = content.find((part) => part.type !== 'text');
    if (media) throw uncarriedPart(subject, media, 'a tool result');
  }
  return isError ? `${TOOL_ERROR_PREFIX}${textOf(content)}` : textOf(content);
}
