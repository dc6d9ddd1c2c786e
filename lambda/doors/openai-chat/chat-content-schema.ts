/**
 * Content parts of the OpenAI chat door (docs/http-api.md#content-parts): `text`, `image_url`
 * (an http(s) URL or a base64 `data:` URL) and `file` (a PDF as `file_data`), read into neutral
 * parts. Media types are checked here, so a bad one is a 400 naming the field.
 */
import * as z from 'zod';
import type { ContentPart, MessageContent } from '../../core/chat/chat-model.js';
import { simplestContent } from '../../core/chat/content-parts.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { cacheControlSchema } from '../shared/cache-breakpoint.js';
import { checked, fileSource, imageSource } from '../shared/media-sources.js';

const textPartOnce = once(() =>
  z.object({
    type: z.literal('text'),
    text: z.string(),
    /** A prompt-cache breakpoint at this part (OpenRouter style; docs/http-api.md#reasoning-and-prompt-caching). */
    cache_control: cacheControlSchema.optional(),
  }),
);

const imagePartOnce = once(() =>
  z
    .object({
      type: z.literal('image_url'),
      image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
    })
    .superRefine((part, ctx) => {
      const source = imageSource(part.image_url.url);
      if (typeof source === 'string')
        ctx.addIssue({ code: 'custom', message: source, path: ['image_url', 'url'] });
    }),
);

const filePartOnce = once(() =>
  z
    .object({
      type: z.literal('file'),
      file: z.object({
        file_data: z.string().optional(),
        file_id: z.string().optional(),
        filename: z.string().max(255).optional(),
      }),
    })
    .superRefine((part, ctx) => {
      const { file_data: data, file_id: id } = part.file;
      if (data === undefined) {
        const message =
          id === undefined
            ? 'needs file_data (a base64 PDF)'
            : 'file_id needs the Files API, which the gateway does not serve: send the PDF as file_data';
        ctx.addIssue({ code: 'custom', message, path: ['file', id === undefined ? 'file_data' : 'file_id'] });
        return;
      }
      const source = fileSource(data);
      if (typeof source === 'string')
        ctx.addIssue({ code: 'custom', message: source, path: ['file', 'file_data'] });
    }),
);

const parts = lazySchema(() => partsOnce());
const partsOnce = once(() =>
  z.array(
    z.discriminatedUnion('type', [textPartOnce(), imagePartOnce(), filePartOnce()], {
      error: 'content parts must be text, image_url or file',
    }),
    { error: 'must be a string or an array of content parts' },
  ),
);

/** A user content part as the caller wrote it (a stored job keeps this wire shape). */
type WirePart = z.output<typeof parts>[number];

/**
 * A user message's content: text, or parts (text, images, PDFs), kept in the wire shape (a job
 * stores the parsed body, and reads it back with this schema). Not a `z.union`: a union would
 * hide which part is wrong behind "Invalid input", and the 400 must name the part's field.
 */
export const userContent = lazySchema(() => userContentOnce());
const userContentOnce = once(() =>
  z.unknown().transform((value, ctx): string | WirePart[] => {
    if (typeof value === 'string') return value;
    const parsed = partsOnce().safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
    }
    return z.NEVER;
  }),
);

/** Text, or an array of text parts (system, developer, assistant and tool messages take text only). */
export const textContent = lazySchema(() => textContentOnce());
const textContentOnce = once(() =>
  z.union([
    z.string(),
    z.array(textPartOnce(), { error: 'must be a string or an array of {type: "text", text} parts' }),
  ]),
);

/** One checked wire part as a neutral part. */
function toPart(part: WirePart): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return { type: 'image', source: checked(imageSource(part.image_url.url)) };
    case 'file': {
      const { file_data: data = '', filename } = part.file;
      return {
        type: 'document',
        source: checked(fileSource(data)),
        ...(filename === undefined ? {} : { name: filename }),
      };
    }
  }
}

/** Parsed user content as neutral content: text-only parts joined into one string (as before parts). */
export function toUserContent(content: z.output<typeof userContent>): MessageContent {
  return typeof content === 'string' ? content : simplestContent(content.map(toPart));
}
