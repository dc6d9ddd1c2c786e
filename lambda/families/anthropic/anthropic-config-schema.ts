/** The Anthropic Messages API as a provider (`type: "anthropic"`). */
import * as z from 'zod';
import { apiKeySecret, envVarName, positiveInt } from '../../core/catalog/config-fields.js';
import { lazySchema } from '../../core/lazy-schema.js';

/**
 * Anthropic's Messages API through the official SDK. `max_tokens` is mandatory there, so a
 * request that names no output limit gets `maxTokens` (capped by the model's `maxOutputTokens`).
 */
export const anthropicProviderSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal('anthropic'),
    /** The API root, always honoured (`/v1/messages` is appended). Default `https://api.anthropic.com`. */
    baseURL: z.url({ protocol: /^https?$/ }).default('https://api.anthropic.com'),
    /** Environment variable holding the API key (local mode). Default: none (a keyless endpoint, e.g. a fake). */
    apiKeyEnv: envVarName.optional(),
    /** Where the API key lives in AWS mode, as for `type: "openai"`. Default: none. */
    apiKeySecret: apiKeySecret.optional(),
    /** `max_tokens` sent when the request sets no output limit. Default 4096. */
    maxTokens: positiveInt.default(4_096),
  }),
);

export type AnthropicProviderConfig = z.infer<typeof anthropicProviderSchema>;
