/**
 * The jobs door's `JobFormat`: a stored job request is a chat completion body without
 * `stream`/`stream_options` — the shape of every record written before the doors were folders,
 * and still the shape written today — read back through the same schema and conversion as the
 * door's own requests; a finished job's webhook carries its answer as a `chat.completion`.
 */
import { formatPath } from '../../core/catalog/parse-config.js';
import type { JobRecord } from '../../core/jobs/job.js';
import { publicJobId } from '../../core/jobs/job.js';
import type { JobFormat, ReadJobRequest } from '../../core/jobs/job-ports.js';
import { chatCompletionDemand, toChatRequest } from '../openai-chat/chat-request-schema.js';
import { storedJobRequestSchema } from './job-request-schema.js';
import { type JobRunView, jobResultView, jobRunView } from './job-view.js';

/**
 * The JSON body of a webhook delivery. The signature covers these exact bytes; receivers should
 * de-duplicate on `jobId` (a crash between the receiver's 2xx and our bookkeeping can resend).
 */
export interface JobWebhookBody {
  jobId: string;
  /** `succeeded` or `failed`: only finished jobs are delivered. */
  status: 'succeeded' | 'failed';
  pipeline: string;
  /** The answer as an OpenAI `chat.completion`, or null for a failed job. */
  result: ReturnType<typeof jobResultView>;
  /** The terminal error of a failed job, else null. */
  error: { code: string; message: string } | null;
  runs: JobRunView[];
}

/**
 * A stored request as the neutral request and its demand. A record that no longer parses (written
 * by hand, or by a version with other rules) cannot run: the message names the field.
 */
export function readJobRequest(request: unknown): ReadJobRequest {
  const parsed = storedJobRequestSchema.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? formatPath(issue.path) : '';
    return { ok: false, message: `stored request ${field || 'body'}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, chat: toChatRequest(parsed.data), demand: chatCompletionDemand(parsed.data) };
}

/** The webhook body for a finished record, or undefined when the record is not finished. */
export function webhookBody(record: JobRecord): JobWebhookBody | undefined {
  if (record.status !== 'succeeded' && record.status !== 'failed') return undefined;
  return {
    jobId: publicJobId(record),
    status: record.status,
    pipeline: record.pipeline,
    result: jobResultView(record),
    error: record.error ?? null,
    runs: record.runs.map(jobRunView),
  };
}

/** What the runner reads stored requests and writes webhooks with (`RunJobDeps.format`). */
export const chatJobFormat: JobFormat = { read: readJobRequest, webhookBody };
