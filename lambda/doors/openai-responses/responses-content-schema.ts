/**
 * The content parts of a Responses user message (docs/http-api.md#the-openai-responses-api):
 * `input_text`, `input_image` (`image_url` as an http(s) URL or a base64 data URL) and
 * `input_file` (a PDF as `file_data`, or by an http(s) `file_url`), checked with the chat door's
 * media checks (shared/media-sources.ts) and read into neutral parts. Ids of files stored by
 * OpenAI are refused by name: the gateway serves no Files API.
 */
import * as z from 'zod';
import type { ContentPart, MessageContent } from '../../core/chat/chat-model.js';
import { simplestContent } from '../../core/chat/content-parts.js';
import { isHttpUrl } from '../../core/chat/media-types.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { checked, fileSource, imageSource } from '../shared/media-sources.js';
import { IMAGE_FILE_ID, PDF_FILE_ID, PDF_FILE_URL } from './stateful-refusals.js';

/** The part types a user message may hold. */
export const USER_PART_TYPES = ['input_text', 'input_image', 'input_file'] as const;

const textPartOnce = once(() => z.object({ type: z.literal('input_text'), text: z.string() }));

const imagePartOnce = once(() =>
  z
    .object({
      type: z.literal('input_image'),
      image_url: z.string().min(1).nullish(),
      file_id: z.string().nullish(),
      /** Accepted and not carried, as chat's `image_url.detail`. */
      detail: z.enum(['auto', 'low', 'high']).nullish(),
    })
    .superRefine((part, ctx) => {
      if (part.image_url == null) {
        const byId = part.file_id != null;
        ctx.addIssue({
          code: 'custom',
          path: [byId ? 'file_id' : 'image_url'],
          message: byId ? IMAGE_FILE_ID : 'needs image_url (an http(s) URL or a base64 data URL)',
        });
        return;
      }
      const source = imageSource(part.image_url);
      if (typeof source === 'string') ctx.addIssue({ code: 'custom', path: ['image_url'], message: source });
    }),
);

const filePartOnce = once(() =>
  z
    .object({
      type: z.literal('input_file'),
      file_data: z.string().nullish(),
      file_url: z.string().nullish(),
      file_id: z.string().nullish(),
      filename: z.string().max(255).nullish(),
    })
    .superRefine((part, ctx) => {
      if (part.file_data != null) {
        const source = fileSource(part.file_data);
        if (typeof source === 'string')
          ctx.addIssue({ code: 'custom', path: ['file_data'], message: source });
        return;
      }
      if (part.file_url != null) {
        if (!isHttpUrl(part.file_url))
          ctx.addIssue({ code: 'custom', path: ['file_url'], message: PDF_FILE_URL });
        return;
      }
      const byId = part.file_id != null;
      ctx.addIssue({
        code: 'custom',
        path: [byId ? 'file_id' : 'file_data'],
        message: byId ? PDF_FILE_ID : 'needs file_data (a base64 PDF data URL) or an http(s) file_url',
      });
    }),
);

/** One user part, discriminated by `type` (the caller's other types are refused before this). */
export const userPart = lazySchema(() => userPartOnce());
const userPartOnce = once(() =>
  z.discriminatedUnion('type', [textPartOnce(), imagePartOnce(), filePartOnce()]),
);

/** A user part as the caller wrote it, checked. */
export type UserPart = z.output<typeof userPart>;

/** One checked part as a neutral part. */
function toPart(part: UserPart): ContentPart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: part.text };
    case 'input_image':
      return { type: 'image', source: checked(imageSource(part.image_url ?? '')) };
    case 'input_file': {
      const source =
        part.file_data != null
          ? checked(fileSource(part.file_data))
          : { kind: 'url' as const, url: part.file_url ?? '' };
      return { type: 'document', source, ...(part.filename == null ? {} : { name: part.filename }) };
    }
  }
}

/** A user message's content as neutral content: text-only parts joined into one string, as before parts. */
export function toUserContent(content: string | readonly UserPart[]): MessageContent {
  return typeof content === 'string' ? content : simplestContent(content.map(toPart));
}
