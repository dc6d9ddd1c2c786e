import * as z from 'zod';
import type { EmbeddingInput } from '../../core/embeddings/embedding-model.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import type { RequestDemand } from '../../core/lifecycle/request-demand.js';

/** Most inputs in one request (OpenAI's own limit). */
export const MAX_EMBEDDING_INPUTS = 2048;

const textOnce = once(() => z.string().min(1, 'must not be empty'));
const tokensOnce = once(() => z.array(z.number().int().nonnegative()).min(1, 'must not be empty'));

/**
 * The body of `POST /v1/embeddings`: OpenAI's embeddings request. `input` is one text, an array
 * of texts, one token array or an array of token arrays.
 */
export const embeddingsBodySchema = lazySchema(() => embeddingsBodySchemaOnce());
const embeddingsBodySchemaOnce = once(() =>
  z.object({
    /** A pipeline name, or a chain over the catalog. Optional when `x-switchyard-pipeline` names it. */
    model: z.string().max(2_000).optional(),
    input: z.union(
      [
        textOnce(),
        z.array(textOnce()).min(1).max(MAX_EMBEDDING_INPUTS),
        tokensOnce(),
        z.array(tokensOnce()).min(1).max(MAX_EMBEDDING_INPUTS),
      ],
      { error: `must be a text, an array of 1–${MAX_EMBEDDING_INPUTS} texts, or token arrays` },
    ),
    /** `float` (default) or `base64` (little-endian float32, what the openai clients ask for). */
    encoding_format: z.enum(['float', 'base64']).nullish(),
    /** The vector length asked for; must be the chain's `dimensions`. */
    dimensions: z.number().int().positive().nullish(),
    user: z.string().max(256).nullish(),
  }),
);

export type EmbeddingsBody = z.infer<typeof embeddingsBodySchema>;

/** The body's inputs as a list: one text or one token array becomes a list of one. */
export function embeddingInputs(input: EmbeddingsBody['input']): EmbeddingInput {
  if (typeof input === 'string') return [input];
  if (input.every((item): item is number => typeof item === 'number')) return [input];
  return input as EmbeddingInput;
}

/** What an embeddings body asks (the lifecycle's demand): its input's JSON size, and no output. */
export function embeddingsDemand(body: Pick<EmbeddingsBody, 'input'>): RequestDemand {
  return { inputChars: JSON.stringify(body.input).length, maxTokens: 0 };
}
