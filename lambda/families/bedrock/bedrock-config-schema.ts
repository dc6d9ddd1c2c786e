/** The `bedrock` provider type: Amazon Bedrock, signed with the process's IAM credentials. */
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';

/** The Bedrock Runtime Converse API. */
export const bedrockProviderSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal('bedrock'),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1'),
    /** Optional endpoint override, e.g. a local fake. Default: the region's Bedrock Runtime endpoint. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
  }),
);

export type BedrockProviderConfig = z.infer<typeof bedrockProviderSchema>;
