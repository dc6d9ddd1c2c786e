import type { StoredTicket } from '../admission/stored-ticket.js';
import type { FinishReason, ToolCall, Usage } from '../chat/chat-model.js';
import type { ChatCompletionBody } from '../chat/chat-request-schema.js';
import type { FailureClass } from '../failures/failure-class.js';
import type { TerminalReason } from '../ledger/ledger-entry.js';

/**
 * The life of a job: `queued` → `running` → `succeeded` | `failed` (terminal: a non-fallback
 * failure such as an invalid request), or back to `retrying` when every route failed; SQS then
 * redelivers it and, after `maxReceiveCount`, parks it in the dead-letter queue.
 */
/** Every status a job record can be in, as stored. */
export const JOB_STATUSES = ['queued', 'running', 'retrying', 'succeeded', 'failed'] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

/** One run of a job through the router, as its attempt ledger summarised it. */
export interface JobRun {
  /** When the run ended, ms since epoch. */
  at: number;
  reason: TerminalReason;
  attempts: number;
  /** The trail, e.g. `gpt-mini:429,llama-or:200`. */
  route: string;
  model?: string | undefined;
  failureClass?: FailureClass | undefined;
  /**
   * Set when admission refused the run before any attempt (the pipeline's rate limit or spend
   * cap): the job stays `retrying` and the queue brings it back; nothing was sent upstream.
   */
  refused?: { code: string; resetsAt: number } | undefined;
}

/** The answer of a succeeded job (an OpenAI-shaped summary; the prompt is never stored twice). */
export interface JobResult {
  model: string;
  content: string | null;
  /** Tool calls the model made, when it answered with them. */
  toolCalls?: ToolCall[] | undefined;
  finishReason: FinishReason;
  usage?: Usage | undefined;
}

/** Where and whether the answer went out. */
export interface JobDelivery {
  url: string;
  /** Secret name (AWS) or env var (local) for the HMAC-SHA256 signature. */
  secretName?: string | undefined;
  secretEnv?: string | undefined;
  /** When the one delivery was acknowledged by the receiver, ms since epoch. */
  deliveredAt?: number | undefined;
}

/** What the jobs table holds for one job. */
export interface JobRecord {
  /**
   * Durable, internal id: `<schedule>:<job id>:<scheduled time>` for scheduled jobs (what fan-out,
   * the queue and the worker de-duplicate on). Also the ledger's `requestId`.
   */
  jobId: string;
  /**
   * The id callers see (`GET /v1/jobs/{id}`, webhooks) when it differs from `jobId`: a random
   * `job_<32 hex>` for scheduled jobs, so their ids cannot be guessed from the schedule. Absent for
   * API jobs, whose `jobId` is already unguessable.
   */
  publicId?: string | undefined;
  pipeline: string;
  request: Omit<ChatCompletionBody, 'stream' | 'stream_options'>;
  status: JobStatus;
  /** ms since epoch. */
  createdAt: number;
  updatedAt: number;
  /** Times a worker took the job (SQS receives that reached the router). */
  runs: JobRun[];
  result?: JobResult | undefined;
  /** The terminal error, when `failed`. */
  error?: { code: string; message: string } | undefined;
  deliver?: JobDelivery | undefined;
  /** Set once the message is on the queue, so a retried fan-out can tell a lost enqueue from a done one. */
  enqueuedAt?: number | undefined;
  schedule?: string | undefined;
  /**
   * The caller key name that created the job through the API (auth on). Only that key may read it
   * back: a job holds a prompt and an answer. Scheduled jobs have no owner.
   */
  owner?: string | undefined;
  /**
   * Set on API jobs taken since jobs count against their caller key (docs/jobs.md#admission): a
   * run without a reservation is admitted against `owner`'s limits as well as the pipeline's.
   * Absent on scheduled jobs and on API jobs stored before: pipeline limits only, as then.
   */
  keyLimits?: true | undefined;
  /**
   * What `POST /v1/jobs` reserved under the key's and the pipeline's limits, for the first run:
   * a claim hands it to exactly one run (and removes it from the store), which settles it with
   * the run's real use. Absent once handed out, and when no limit applied.
   */
  reservation?: StoredTicket | undefined;
  /** Lease of the worker that runs it: another worker does not take it before this time. */
  leaseUntil?: number | undefined;
  /** TTL, epoch seconds. */
  expiresAt: number;
}

/** The queue message: only the id. The record holds the request, so a replayed message is enough. */
export interface JobMessage {
  jobId: string;
}

/** The id a caller sees for a record: its `publicId`, else its `jobId`. */
export function publicJobId(record: Pick<JobRecord, 'jobId' | 'publicId'>): string {
  return record.publicId ?? record.jobId;
}

/**
 * A fresh unguessable public job id, `job_` + 32 hex digits (128 bits from the platform's CSPRNG:
 * a breaker's `Random` is not meant to be unpredictable, so ids do not use it).
 */
export function randomPublicJobId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `job_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** `nightly-digest`, `acct-42`, `2026-11-29T03:00:00Z` → `nightly-digest:acct-42:2026-11-29T03:00:00Z`. */
export function scheduledJobId(schedule: string, jobId: string, scheduledTime: string): string {
  return `${schedule}:${jobId}:${scheduledTime}`;
}

/** `DelaySeconds` for one job of a spread fan-out: uniform in [0, spreadSeconds], at most 900 (SQS's limit). */
export function spreadDelaySeconds(spreadSeconds: number, random: () => number): number {
  const window = Math.max(0, Math.min(900, Math.floor(spreadSeconds)));
  return Math.min(window, Math.floor(random() * (window + 1)));
}
