import { lazyChatModel } from '../lazy-chat-model.js';
import type { ProviderFamily } from '../provider-family.js';
import { type BedrockProviderConfig, bedrockProviderSchema } from './bedrock-config-schema.js';
import { bedrockTakesPrefill } from './bedrock-prefill.js';
import { BEDROCK_SIGNALS } from './bedrock-signals.js';

/** `type: "bedrock"`: the Bedrock Runtime Converse API, signed with IAM credentials (no key); chat only. */
export const bedrockFamily = {
  type: 'bedrock',
  schema: bedrockProviderSchema,
  keyed: false,
  embeddings: false,
  acceptsPrefill: bedrockTakesPrefill,
  traceName: 'aws.bedrock',
  // Converse: image and document blocks with bytes (no URL, and the gateway fetches none), media in
  // toolResult, tools, reasoning content, cache points, prefill (model-dependent: `acceptsPrefill`
  // narrows it to Claude; a model's own capabilities override); no log probabilities.
  capabilities: {
    images: true,
    imageUrls: false,
    documents: true,
    documentUrls: false,
    toolResultMedia: true,
    tools: true,
    reasoning: true,
    caching: true,
    logprobs: false,
    prefill: true,
  },
  signals: BEDROCK_SIGNALS,
  createModels:
    ({ access, limits }) =>
    (route) =>
      // The adapter and the Bedrock Runtime client load on the route's first call (a chunk of the Lambda bundle).
      lazyChatModel({ key: route.key, provider: route.providerName }, async () =>
        (await import('./bedrock-chat-model.js')).createBedrockChatModel({
          key: route.key,
          provider: route.providerName,
          model: route.model,
          region: route.provider.region,
          endpoint: route.provider.endpoint,
          credentials: access.bedrockCredentials,
          connectMs: route.timeouts.connectMs,
          limits,
        }),
      ),
} as const satisfies ProviderFamily<BedrockProviderConfig>;
