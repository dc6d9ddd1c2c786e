/**
 * The media types a content part may declare (docs/http-api.md#content-parts): those every
 * provider family that takes the part accepts, so a part valid at the door is valid on every
 * route that carries it.
 */
import type { MediaSource } from './chat-model.js';

/** Image media types: PNG, JPEG, GIF and WebP (OpenAI, Anthropic, Bedrock Converse and Gemini all take these). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Document media types: PDF only (the one format OpenAI's `file` part, Anthropic and Converse share). */
export const DOCUMENT_MEDIA_TYPES = ['application/pdf'] as const;

/** An error message for a media type outside `allowed`, or undefined when it is allowed. */
export function mediaTypeProblem(mediaType: string, allowed: readonly string[]): string | undefined {
  if (allowed.includes(mediaType.toLowerCase())) return undefined;
  return `media type '${mediaType}' is not supported; use one of ${allowed.join(', ')}`;
}

/** Base64 text (standard alphabet, optional padding). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** True when `data` is non-empty standard base64. */
export function isBase64(data: string): boolean {
  return data.length > 0 && data.length % 4 !== 1 && BASE64.test(data);
}

/** The result of reading a `data:` URL: its source, or why it cannot be one. */
export type DataUrlReading =
  | { ok: true; source: MediaSource & { kind: 'data' } }
  | { ok: false; problem: string };

/**
 * Reads a base64 `data:` URL (`data:image/png;base64,iVBOR...`, RFC 2397) into an inline source.
 * Only base64 payloads are accepted: percent-encoded text is not an image or a PDF.
 */
export function readDataUrl(url: string): DataUrlReading {
  const comma = url.indexOf(',');
  const header = comma < 0 ? '' : url.slice(5, comma);
  const params = header.split(';');
  const mediaType = (params[0] ?? '').toLowerCase();
  if (comma < 0 || !url.toLowerCase().startsWith('data:') || !params.slice(1).includes('base64')) {
    return { ok: false, problem: 'must be a base64 data URL (data:<media type>;base64,<data>)' };
  }
  const data = url.slice(comma + 1);
  if (!isBase64(data)) return { ok: false, problem: 'the data URL holds no valid base64 data' };
  return { ok: true, source: { kind: 'data', mediaType, data } };
}

/** True for an http or https URL (the only URLs a provider is asked to fetch). */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url);
}
