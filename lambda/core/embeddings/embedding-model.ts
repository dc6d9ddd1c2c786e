/**
 * The embeddings side of the provider contract (`ChatModel.embed`): a provider-neutral request
 * and result, so the router and the HTTP layer never see a provider's own shapes.
 */
import type { Usage } from '../chat/chat-model.js';

/** Texts (or token arrays) to embed: one vector each, in order. */
export type EmbeddingInput = string[] | number[][];

export interface EmbeddingRequest {
  input: EmbeddingInput;
  /** Length every vector must have: the embedding space of the chain (the models' `dimensions`). */
  dimensions: number;
  /** Ask the upstream for `dimensions` (the caller sent the field): models that shorten vectors need it. */
  sendDimensions: boolean;
}

export interface EmbeddingResult {
  /** One vector per input, in input order, each of the request's `dimensions`. */
  vectors: number[][];
  /** `outputTokens` is always 0: embeddings are billed by input. */
  usage?: Usage | undefined;
}
