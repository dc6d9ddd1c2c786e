/**
 * Where a door's image or PDF part points, checked once for every door that reads OpenAI-style
 * media fields (chat's `image_url` / `file.file_data`, Responses' `input_image` / `input_file`):
 * an http(s) URL, or a base64 `data:` URL of a media type every family that takes the part accepts
 * (docs/http-api.md#content-parts). Each check answers the source, or the problem as the message
 * of a 400 on the field that held it.
 */
import type { MediaSource } from '../../core/chat/chat-model.js';
import {
  DOCUMENT_MEDIA_TYPES,
  IMAGE_MEDIA_TYPES,
  isBase64,
  isHttpUrl,
  mediaTypeProblem,
  readDataUrl,
} from '../../core/chat/media-types.js';

/** An image's URL (http(s), or a base64 data URL of an image type) as a source, or the problem with it. */
export function imageSource(url: string): MediaSource | string {
  if (isHttpUrl(url)) return { kind: 'url', url };
  if (!url.toLowerCase().startsWith('data:')) return 'must be an http(s) URL or a base64 data URL';
  const read = readDataUrl(url);
  if (!read.ok) return read.problem;
  return mediaTypeProblem(read.source.mediaType, IMAGE_MEDIA_TYPES) ?? read.source;
}

/** A PDF's file data (a base64 data URL, or bare base64 read as a PDF) as a source, or the problem with it. */
export function fileSource(fileData: string): MediaSource | string {
  if (!fileData.toLowerCase().startsWith('data:')) {
    return isBase64(fileData)
      ? { kind: 'data', mediaType: 'application/pdf', data: fileData }
      : 'must be a base64 data URL (data:application/pdf;base64,...) or base64 data';
  }
  const read = readDataUrl(fileData);
  if (!read.ok) return read.problem;
  return mediaTypeProblem(read.source.mediaType, DOCUMENT_MEDIA_TYPES) ?? read.source;
}

/**
 * A source its door's schema has already checked. A problem here means a part skipped the
 * schema: a programming error, thrown rather than sent on.
 */
export function checked(source: MediaSource | string): MediaSource {
  if (typeof source === 'string') throw new Error(`unchecked content part: ${source}`);
  return source;
}
