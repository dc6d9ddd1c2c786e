/**
 * The request of a job, as `POST /v1/jobs` takes it, a schedule's job names it in the config, and
 * the job record stores it: a chat completion body, never streamed. Every version has stored this
 * shape; changing it needs a version both old and new code read (docs/jobs.md).
 */
import { lazySchema } from '../../core/lazy-schema.js';
import { chatCompletionObjectSchema, checkChatFields } from '../openai-chat/chat-request-schema.js';

export const storedJobRequestSchema = lazySchema(() =>
  chatCompletionObjectSchema.omit({ stream: true, stream_options: true }).superRefine(checkChatFields),
);
