/**
 * The body of `POST /v1/responses`: OpenAI's Responses API request, in the stateless use the
 * SDKs make of it. Stored state and built-in tools are refused by name (stateful-refusals.ts);
 * fields that only tune OpenAI's own service (`include`, `service_tier`, `prompt_cache_key`,
 * `safety_identifier`, `truncation`, `parallel_tool_calls`...) are accepted and ignored, as the
 * chat door ignores its own such fields.
 */
import * as z from 'zod';
import { once } from '../../core/lazy-schema.js';
import { inputSchema } from './responses-input-schema.js';
import {
  BACKGROUND,
  builtInTool,
  CONVERSATION,
  PREVIOUS_RESPONSE,
  STORE,
  STORED_PROMPT,
} from './stateful-refusals.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_RULE = 'must be 1–64 letters, digits, _ or -';

/** A field that must be absent (or null): `message` says what to use instead. */
const absent = (message: string) =>
  z
    .unknown()
    .refine((value) => value === null, { message })
    .optional();

/** A flag that may only be false (or absent). */
const offOnly = (message: string) =>
  z
    .boolean()
    .nullish()
    .refine((value) => value !== true, { message });

const functionToolOnce = once(() =>
  z.object({
    type: z.literal('function'),
    name: z.string().regex(NAME, NAME_RULE),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }).nullish(),
    strict: z.boolean().nullish(),
  }),
);

/** A tool: `function` only; a built-in tool's type is named in the refusal. */
const toolOnce = once(() =>
  z
    .looseObject({ type: z.string({ error: 'must name the tool type' }) })
    .superRefine((value, ctx) => {
      if (value.type !== 'function')
        ctx.addIssue({ code: 'custom', path: ['type'], message: builtInTool(value.type) });
    })
    .pipe(functionToolOnce()),
);

const toolChoiceOnce = once(() =>
  z.union(
    [
      z.enum(['auto', 'none', 'required']),
      z.object({ type: z.literal('function'), name: z.string().min(1) }),
    ],
    { error: 'must be auto, none, required or {type: "function", name}; built-in tools are not carried' },
  ),
);

/** `text.format`: plain text, any JSON object, or JSON matching a schema (flat, as the Responses API has it). */
const textFormatOnce = once(() =>
  z.discriminatedUnion(
    'type',
    [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        name: z.string().regex(NAME, NAME_RULE),
        description: z.string().nullish(),
        schema: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }),
        strict: z.boolean().nullish(),
      }),
    ],
    { error: 'type must be text, json_object or json_schema' },
  ),
);

/**
 * `reasoning.effort`. `none` asks for no reasoning and is read as no request for it; the other
 * levels travel as the neutral request's `reasoning.effort`.
 */
const reasoningOnce = once(() =>
  z.object({
    effort: z.enum(['none', 'minimal', 'low', 'medium', 'high']).nullish(),
    summary: z.string().nullish(),
  }),
);

/** The Responses request, with `input` bounded to `maxItems` items (the config's `limits.maxMessages`). */
export function responsesBodySchema(maxItems: number) {
  return z.object({
    /** A pipeline name, or a chain over the catalog. Optional when `x-switchyard-pipeline` names it. */
    model: z.string().max(2_000).optional(),
    input: inputSchema(maxItems),
    instructions: z.string().nullish(),
    tools: z.array(toolOnce()).max(128).nullish(),
    tool_choice: toolChoiceOnce().nullish(),
    text: z.object({ format: textFormatOnce().nullish() }).nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    reasoning: reasoningOnce().nullish(),
    stream: z.boolean().nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
    user: z.string().nullish(),
    previous_response_id: absent(PREVIOUS_RESPONSE),
    conversation: absent(CONVERSATION),
    prompt: absent(STORED_PROMPT),
    store: offOnly(STORE),
    background: offOnly(BACKGROUND),
  });
}

export type ResponsesBody = z.output<ReturnType<typeof responsesBodySchema>>;
