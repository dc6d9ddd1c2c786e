/**
 * The `input` of a Responses request as the SDKs send it statelessly: a string, or items —
 * messages (with or without `type: "message"`) whose content is text parts (a user message's may
 * also hold images and PDFs: responses-content-schema.ts), `function_call` and
 * `function_call_output` (its output text). Every other item or part is a 400 naming it
 * (stateful-refusals.ts).
 */
import * as z from 'zod';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { USER_PART_TYPES, userPart } from './responses-content-schema.js';
import { ITEM_REFERENCE, unsupportedItem, unsupportedPart } from './stateful-refusals.js';

/**
 * An object whose `type` must be one of `allowed`; any other type is an issue on `type` with
 * `refusal(type)` as its message, before the object's own schema is applied.
 */
function typed<T extends z.ZodType<unknown, { type: string }>>(
  allowed: readonly string[],
  refusal: (type: string) => string,
  schema: T,
) {
  return z
    .looseObject({ type: z.string({ error: 'must name the item type' }) })
    .superRefine((value, ctx) => {
      if (!allowed.includes(value.type)) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: refusal(value.type) });
      }
    })
    .pipe(schema);
}

/**
 * A string, or a value of `schema` (an array). Unlike `z.union`, whose one issue would name only
 * the field, a bad array reports its own issues with their paths (`input[2].call_id`).
 */
export function stringOr<T extends z.ZodType>(schema: T, error: string) {
  return z.unknown().transform((value, ctx): string | z.output<T> => {
    if (typeof value === 'string') return value;
    if (!Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: error });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    return z.NEVER;
  });
}

const textParts = (partType: 'input_text' | 'output_text') =>
  z.array(
    typed(
      [partType],
      (type) => unsupportedPart(type, partType),
      z.object({ type: z.literal(partType), text: z.string() }),
    ),
  );

const content = (partType: 'input_text' | 'output_text') =>
  stringOr(textParts(partType), `must be a string or an array of ${partType} parts`);

/** A user message's content: text, or text, image and file parts. */
const userContent = stringOr(
  z.array(typed(USER_PART_TYPES, (type) => unsupportedPart(type, USER_PART_TYPES.join(', ')), userPart)),
  `must be a string or an array of ${USER_PART_TYPES.join(', ')} parts`,
);

const messageItemOnce = once(() =>
  z.discriminatedUnion(
    'role',
    [
      z.object({ type: z.literal('message'), role: z.literal('user'), content: userContent }),
      z.object({ type: z.literal('message'), role: z.literal('system'), content: content('input_text') }),
      z.object({ type: z.literal('message'), role: z.literal('developer'), content: content('input_text') }),
      z.object({ type: z.literal('message'), role: z.literal('assistant'), content: content('output_text') }),
    ],
    { error: 'role must be user, system, developer or assistant' },
  ),
);

const functionCallItemOnce = once(() =>
  z.object({
    type: z.literal('function_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
  }),
);

const functionCallOutputItemOnce = once(() =>
  z.object({
    type: z.literal('function_call_output'),
    call_id: z.string().min(1),
    output: content('input_text'),
  }),
);

const ITEM_TYPES = ['message', 'function_call', 'function_call_output'] as const;

/** A message given as `{role, content}` (no `type`) is a `message` item, as the API reads it. */
const withMessageType = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && !('type' in value) && 'role' in value
    ? { ...value, type: 'message' }
    : value;

const inputItem = lazySchema(() => inputItemOnce());
const inputItemOnce = once(() =>
  z.preprocess(
    withMessageType,
    typed(
      ITEM_TYPES,
      (type) => (type === 'item_reference' ? ITEM_REFERENCE : unsupportedItem(type)),
      z.discriminatedUnion('type', [messageItemOnce(), functionCallItemOnce(), functionCallOutputItemOnce()]),
    ),
  ),
);

/** One input item, as read. */
export type InputItem = z.output<typeof inputItem>;

/**
 * `input`: a string (one user message) or at most `maxItems` items (the config's
 * `limits.maxMessages`, named here as `input` rather than as chat's `messages`).
 */
export function inputSchema(maxItems: number) {
  return stringOr(
    z
      .array(inputItemOnce())
      .min(1, 'must hold at least one item')
      .max(maxItems, `at most ${maxItems} items per request (limits.maxMessages)`),
    'must be a string or an array of input items',
  );
}

/** The text of a string or of text parts. */
export function partsText(value: string | readonly { text: string }[]): string {
  return typeof value === 'string' ? value : value.map((part) => part.text).join('');
}
