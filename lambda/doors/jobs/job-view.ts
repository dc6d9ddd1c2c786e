import { type JobRecord, type JobRun, type JobStatus, publicJobId } from '../../core/jobs/job.js';
import { completionBody } from '../openai-chat/openai-format.js';

/** One run of a job as the API shows it: when, why it ended, how many attempts, which route. */
export interface JobRunView {
  /** ISO 8601. */
  at: string;
  /** The request line's terminal reason: `success`, `exhausted`, `deadline`, `stopped`… */
  reason: JobRun['reason'];
  attempts: number;
  /** The trail, e.g. `gpt-mini:429,llama-or:200`. */
  route: string;
  /** The model key that answered, or null. */
  model: string | null;
  /** The failure class that ended the run, or null. */
  failure_class: string | null;
  /** When admission refused the run: `rate_limit_exceeded`/`budget_exceeded` and when it resets (ISO). Else absent. */
  refused?: { code: string; resets_at: string } | undefined;
}

/** `GET /v1/jobs/{id}`: a job's status, answer and attempt summary. Never the prompt. */
export interface JobView {
  id: string;
  object: 'job';
  status: JobStatus;
  /** Pipeline name, or the canonical chain for an ad-hoc chain. */
  pipeline: string;
  /** The schedule that fanned it out, or null for a job posted to the API. */
  schedule: string | null;
  /** Seconds since the epoch, as OpenAI's `created`. */
  created: number;
  updated: number;
  /** True once the message is on the queue. */
  enqueued: boolean;
  /** The answer as an OpenAI `chat.completion`, once succeeded. */
  result: ReturnType<typeof jobResultView>;
  error: { code: string; message: string } | null;
  runs: JobRunView[];
  /** Upstream attempts over every run. */
  attempts: number;
  /** Webhook state; the URL is not shown (it may carry a token). */
  delivery: { status: 'none' | 'pending' | 'delivered'; delivered_at: string | null };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** One run for the API and the webhook. */
export function jobRunView(run: JobRun): JobRunView {
  return {
    at: new Date(run.at).toISOString(),
    reason: run.reason,
    attempts: run.attempts,
    route: run.route,
    model: run.model ?? null,
    failure_class: run.failureClass ?? null,
    ...(run.refused
      ? { refused: { code: run.refused.code, resets_at: new Date(run.refused.resetsAt).toISOString() } }
      : {}),
  };
}

/**
 * The stored answer as an OpenAI `chat.completion`, so a client parses it like a direct call: in
 * the legacy `function_call` shape when the job was asked with `functions`. Log probabilities are
 * not kept with a stored answer.
 */
export function jobResultView(record: JobRecord) {
  const result = record.result;
  if (result === undefined) return null;
  const legacyFunctions = record.request.functions !== undefined;
  return completionBody(
    {
      content: result.content,
      toolCalls: result.toolCalls ?? [],
      finishReason: result.finishReason,
      usage: result.usage,
    },
    { id: `chatcmpl-${publicJobId(record)}`, created: seconds(record.updatedAt), model: result.model },
    { legacyFunctions },
  );
}

/** A record as `GET /v1/jobs/{id}` and `POST /v1/jobs` answer it. */
export function jobView(record: JobRecord): JobView {
  const deliveredAt = record.deliver?.deliveredAt;
  return {
    id: publicJobId(record),
    object: 'job',
    status: record.status,
    pipeline: record.pipeline,
    schedule: record.schedule ?? null,
    created: seconds(record.createdAt),
    updated: seconds(record.updatedAt),
    enqueued: record.enqueuedAt !== undefined,
    result: jobResultView(record),
    error: record.error ?? null,
    runs: record.runs.map(jobRunView),
    attempts: record.runs.reduce((sum, run) => sum + run.attempts, 0),
    delivery: {
      status: record.deliver === undefined ? 'none' : deliveredAt === undefined ? 'pending' : 'delivered',
      delivered_at: deliveredAt === undefined ? null : new Date(deliveredAt).toISOString(),
    },
  };
}
