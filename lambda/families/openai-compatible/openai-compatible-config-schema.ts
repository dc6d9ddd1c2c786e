/** The `openai` provider type: any OpenAI-compatible chat completions endpoint. */
import * as z from 'zod';
import { apiKeySecret, envVarName } from '../../core/catalog/config-fields.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** An OpenAI-compatible endpoint: OpenAI, Google's and Vertex's compatible endpoints, OpenRouter, Together, a fake. */
export const openAIProviderSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal('openai'),
    /** Always honoured, e.g. `https://api.openai.com/v1`. */
    baseURL: z.url({ protocol: /^https?$/ }),
    /** Environment variable holding the API key (local mode). Default: none (a keyless endpoint). */
    apiKeyEnv: envVarName.optional(),
    /**
     * Where the API key lives in AWS mode: a name starting with `/` is an SSM SecureString
     * parameter, anything else a Secrets Manager secret name. Default: none.
     */
    apiKeySecret: apiKeySecret.optional(),
  }),
);

export type OpenAIProviderConfig = z.infer<typeof openAIProviderSchema>;
