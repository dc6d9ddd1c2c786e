import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AFTER_OUTPUT_POLICIES } from '../router/stream-continuation.js';

/**
 * A pipeline's `streaming` block (docs/configuration.md#streaming): what a stream that breaks
 * after output started does.
 */
export const streamingSchema = lazySchema(() =>
  z.strictObject({
    /**
     * `error` (default): the stream ends with an in-band `stream_interrupted` error. `continue-same-model`:
     * a route of the same model that takes an assistant prefill continues the answer, labelled.
     * `continue`: any later model of the chain that takes a prefill may continue it too.
     */
    afterOutput: z.enum(AFTER_OUTPUT_POLICIES).default('error'),
  }),
);

export type StreamingSettings = z.infer<typeof streamingSchema>;
