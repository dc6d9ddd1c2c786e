/**
 * The OpenAI-compatible embeddings API (`POST {baseURL}/embeddings`): the request body, and the
 * answer read as untrusted JSON. An answer that does not hold one vector of the chain's length
 * per input is `malformed_response`: a vector of another space must never reach an index.
 */
import type { EmbeddingRequest, EmbeddingResult } from '../../core/embeddings/embedding-model.js';
import { isRecord, tokenCount } from '../shared/json-shape.js';
import { type ErrorSubject, malformedResponse } from '../shared/malformed-response.js';

/** The upstream request: floats always (the gateway encodes base64 itself), `dimensions` only when the caller sent it. */
export function toOpenAIEmbeddingParams(request: EmbeddingRequest, model: string): object {
  return {
    model,
    input: request.input,
    encoding_format: 'float',
    ...(request.sendDimensions ? { dimensions: request.dimensions } : {}),
  };
}

const isVector = (value: unknown, length: number): value is number[] =>
  Array.isArray(value) &&
  value.length === length &&
  value.every((n) => typeof n === 'number' && Number.isFinite(n));

/** The vectors in input order (by each item's `index`), and the usage; throws `malformed_response`. */
export function mapOpenAIEmbeddings(
  body: unknown,
  subject: ErrorSubject,
  request: EmbeddingRequest,
): EmbeddingResult {
  const data = isRecord(body) ? body.data : undefined;
  const count = request.input.length;
  if (!Array.isArray(data) || data.length !== count)
    throw malformedResponse(subject, `expected ${count} embeddings in data`);
  const vectors: number[][] = new Array(count);
  for (const [position, item] of data.entries()) {
    const index = isRecord(item) && Number.isInteger(item.index) ? (item.index as number) : position;
    const vector = isRecord(item) ? item.embedding : undefined;
    if (index < 0 || index >= count || vectors[index] !== undefined)
      throw malformedResponse(subject, `embedding index ${index} is out of place`);
    if (!isVector(vector, request.dimensions))
      throw malformedResponse(
        subject,
        `embedding ${index} is not ${request.dimensions} numbers (the model's dimensions)`,
      );
    vectors[index] = vector;
  }
  const usage = isRecord(body) && isRecord(body.usage) ? tokenCount(body.usage.prompt_tokens) : undefined;
  return { vectors, usage: usage === undefined ? undefined : { inputTokens: usage, outputTokens: 0 } };
}
