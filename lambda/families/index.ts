/** Provider adapters: one factory per provider family, all behind the `ChatModel` contract. */
export {
  type AnthropicChatModelOptions,
  createAnthropicChatModel,
} from './anthropic/anthropic-chat-model.js';
export {
  type BedrockChatModelOptions,
  type BedrockCredentials,
  createBedrockChatModel,
} from './bedrock/bedrock-chat-model.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-compatible/openai-chat-model.js';
