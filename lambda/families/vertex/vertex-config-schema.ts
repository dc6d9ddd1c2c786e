/**
 * The `vertex` provider (docs/configuration.md#vertex-ai): Gemini models through Vertex AI's
 * OpenAI-compatible endpoint, authorised with OAuth access tokens minted from a service account.
 * Kept apart from config-schema.ts so each provider family reads on its own.
 */
import * as z from 'zod';
import { envVarName, positiveInt } from '../../core/catalog/config-fields.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** A secret's name in AWS: an SSM SecureString path (`/…`) or a Secrets Manager name. */
export const secretName = lazySchema(() =>
  z
    .string()
    .regex(
      /^(\/[A-Za-z0-9_.\-/]+|[A-Za-z0-9/_+=.@-]+)$/,
      'must be an SSM parameter path or a Secrets Manager name',
    ),
);

export const vertexProviderSchema = lazySchema(() =>
  z
    .strictObject({
      type: z.literal('vertex'),
      /** The Google Cloud project id, e.g. `my-project`. */
      project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id'),
      /** The Vertex AI location, e.g. `us-central1`, or `global`. */
      location: z
        .string()
        .regex(/^(global|[a-z]+-[a-z]+\d+)$/, 'must be a Vertex AI location such as us-central1'),
      /**
       * Endpoint override (a local fake). Default: `vertexBaseURL(project, location)`, the
       * location's OpenAI-compatible endpoint.
       */
      baseURL: z.url({ protocol: /^https?$/ }).optional(),
      /** Environment variable holding the service-account key JSON itself (local mode). Default: none. */
      apiKeyEnv: envVarName.optional(),
      /** Path of the service-account key JSON file (local mode). Default: none. */
      credentialsFile: z.string().min(1).optional(),
      /** Where the service-account key JSON lives in AWS mode (SSM SecureString `/…` or Secrets Manager). Default: none. */
      apiKeySecret: secretName.optional(),
      /** A cached access token is refreshed this many ms before it expires, in the background. Default 300000 (5 min). */
      refreshBeforeExpiryMs: positiveInt.default(300_000),
      /** Longest wait for the token endpoint, in ms; also the pause after a failed background refresh. Default 10000. */
      tokenTimeoutMs: positiveInt.default(10_000),
    })
    .refine((p) => p.apiKeyEnv ?? p.credentialsFile ?? p.apiKeySecret, {
      message: 'needs the service-account key: apiKeyEnv or credentialsFile (local), apiKeySecret (AWS)',
      path: ['apiKeySecret'],
    }),
);

export type VertexProviderConfig = z.infer<typeof vertexProviderSchema>;

/** The OAuth scope Vertex AI calls need. */
export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The OpenAI-compatible endpoint of a project and location: chat completions and embeddings are
 * under it. `global` has no regional host.
 */
export function vertexBaseURL(
  provider: Pick<VertexProviderConfig, 'project' | 'location' | 'baseURL'>,
): string {
  if (provider.baseURL !== undefined) return provider.baseURL;
  const { project, location } = provider;
  const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${project}/locations/${location}/endpoints/openapi`;
}
