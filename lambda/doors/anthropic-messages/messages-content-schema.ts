/**
 * Image and document blocks of the Anthropic Messages door (docs/http-api.md#content-parts):
 * `image` and `document` with a `base64` or `url` source, read into neutral parts. Media types are
 * checked here, so a bad one is a 400 naming the field.
 */
import * as z from 'zod';
import type { ContentPart, MediaSource } from '../../core/chat/chat-model.js';
import {
  DOCUMENT_MEDIA_TYPES,
  IMAGE_MEDIA_TYPES,
  isBase64,
  isHttpUrl,
  mediaTypeProblem,
} from '../../core/chat/media-types.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

/** A `base64` or `url` source, checked against `mediaTypes`. */
const source = (mediaTypes: readonly string[]) =>
  z
    .discriminatedUnion(
      'type',
      [
        z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
        z.object({ type: z.literal('url'), url: z.string() }),
      ],
      { error: 'source type must be base64 or url' },
    )
    .transform((s, ctx): MediaSource => {
      if (s.type === 'url') {
        if (isHttpUrl(s.url)) return { kind: 'url', url: s.url };
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL', path: ['url'] });
        return z.NEVER;
      }
      const problem = mediaTypeProblem(s.media_type, mediaTypes);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['media_type'] });
      if (!isBase64(s.data)) ctx.addIssue({ code: 'custom', message: 'must be base64 data', path: ['data'] });
      if (problem || !isBase64(s.data)) return z.NEVER;
      return { kind: 'data', mediaType: s.media_type.toLowerCase(), data: s.data };
    });

/** An `image` block (PNG, JPEG, GIF, WebP; inline or by URL). */
export const imageBlock = lazySchema(() => imageBlockOnce());
const imageBlockOnce = once(() =>
  z
    .object({ type: z.literal('image'), source: source(IMAGE_MEDIA_TYPES) })
    .transform((b): ContentPart => ({ type: 'image', source: b.source })),
);

/** A `document` block (a PDF, inline or by URL); its `title` is the document's name. */
export const documentBlock = lazySchema(() => documentBlockOnce());
const documentBlockOnce = once(() =>
  z
    .object({
      type: z.literal('document'),
      source: source(DOCUMENT_MEDIA_TYPES),
      title: z.string().max(500).nullish(),
    })
    .transform(
      (b): ContentPart => ({ type: 'document', source: b.source, ...(b.title ? { name: b.title } : {}) }),
    ),
);
