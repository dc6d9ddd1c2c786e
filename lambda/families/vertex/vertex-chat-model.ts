import type { ChatModel } from '../../core/chat/chat-model.js';
import {
  createOpenAIChatModel,
  type OpenAIChatModelOptions,
} from '../openai-compatible/openai-chat-model.js';
import type { VertexTokens } from './vertex-tokens.js';

/** Options of {@link createVertexChatModel}: the OpenAI model's, with the provider's tokens instead of a key. */
export interface VertexChatModelOptions extends Omit<OpenAIChatModelOptions, 'apiKey'> {
  /** The provider's access tokens (`createVertexTokens`), shared by its models. */
  tokens: VertexTokens;
}

/**
 * A Gemini model on Vertex AI: the OpenAI-compatible transport (`providers/openai`) against the
 * location's `…/endpoints/openapi`, whose bearer token is an OAuth access token of the
 * provider's service account, minted and refreshed by `tokens`. Model ids are Vertex's, e.g.
 * `google/gemini-2.0-flash-001`.
 */
export function createVertexChatModel(options: VertexChatModelOptions): ChatModel {
  const { tokens, ...rest } = options;
  const subject = { provider: options.provider, model: options.key };
  return createOpenAIChatModel({ ...rest, apiKey: (signal) => tokens(subject, signal) });
}
