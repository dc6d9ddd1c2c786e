/** Neutral message content as Converse blocks (`image` and `document` with their bytes). */
import type {
  ContentBlock,
  DocumentFormat,
  ImageFormat,
  ToolResultContentBlock,
} from '@aws-sdk/client-bedrock-runtime';
import type { ContentPart, MessageContent } from '../../core/chat/chat-model.js';
import { partsOf } from '../../core/chat/content-parts.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { uncarriedPart } from '../shared/uncarried-part.js';

/** Converse's image `format` of each image media type the doors accept. */
const IMAGE_FORMATS: Readonly<Record<string, ImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** Converse's document `format` of each document media type the doors accept. */
const DOCUMENT_FORMATS: Readonly<Record<string, DocumentFormat>> = { 'application/pdf': 'pdf' };

/**
 * A document's `name` as Converse accepts it: letters, digits, single spaces, hyphens,
 * parentheses and square brackets only. The caller's file name loses its extension and every
 * other character; with nothing left (or no name) it is `document-<n>` (`n` from 1 per message).
 */
export function converseDocumentName(name: string | undefined, n: number): string {
  const cleaned = (name ?? '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  return cleaned === '' ? `document-${n}` : cleaned;
}

/** Inline bytes; a part by URL has no Converse form (it takes bytes or S3 locations, and the gateway fetches nothing). */
function bytesOf(part: Exclude<ContentPart, { type: 'text' }>, subject: ErrorSubject, where: string) {
  if (part.source.kind === 'url') throw uncarriedPart(subject, part, where);
  return { mediaType: part.source.mediaType, bytes: Buffer.from(part.source.data, 'base64') };
}

/**
 * Content as Converse blocks: text as `text` (empty text dropped: Converse rejects it), an image
 * as `image` {format, source.bytes}, a PDF as `document` {format, name, source.bytes}.
 */
export function toConverseContent(
  content: MessageContent,
  subject: ErrorSubject,
  where = 'a user message',
): ContentBlock[] & ToolResultContentBlock[] {
  const blocks: (ContentBlock & ToolResultContentBlock)[] = [];
  let documents = 0;
  for (const part of partsOf(content)) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ text: part.text });
      continue;
    }
    const { mediaType, bytes } = bytesOf(part, subject, where);
    if (part.type === 'image') {
      const format = IMAGE_FORMATS[mediaType];
      if (!format) throw uncarriedPart(subject, part, where);
      blocks.push({ image: { format, source: { bytes } } });
    } else {
      const format = DOCUMENT_FORMATS[mediaType];
      if (!format) throw uncarriedPart(subject, part, where);
      documents += 1;
      blocks.push({
        document: { format, name: converseDocumentName(part.name, documents), source: { bytes } },
      });
    }
  }
  return blocks;
}
