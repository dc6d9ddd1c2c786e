/** The answer of `POST /v1/embeddings` in OpenAI's shape. */
import type { EmbeddingResult } from '../../core/embeddings/embedding-model.js';

/** One vector as base64 of little-endian float32s, as OpenAI encodes `encoding_format: "base64"`. */
export function base64Vector(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, index) => {
    view.setFloat32(index * 4, value, true);
  });
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`; `model` is the model key that answered. */
export function embeddingsBody(result: EmbeddingResult, model: string, encoding: 'float' | 'base64'): object {
  const promptTokens = result.usage?.inputTokens ?? 0;
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? base64Vector(vector) : vector,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
