import { SwitchyardError } from '../errors.js';
import type { TimeoutPhase } from './attempt-timeout.js';
import type { FailureClass } from './failure-class.js';

/** Everything the attempt loop needs to know about one failed upstream call. */
export interface ProviderErrorFields {
  /** Provider name from the config, e.g. `openai`. */
  provider: string;
  /** Model key from the catalog, e.g. `gpt-mini`. */
  model: string;
  /** Upstream HTTP status when there was one. */
  status?: number | undefined;
  failureClass: FailureClass;
  /** Cooling hint from `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
  /** With `failureClass: 'timeout'`: which of the attempt's limits ran out. */
  timeoutPhase?: TimeoutPhase | undefined;
  /** With `failureClass: 'timeout'`: the caller's own `max_tokens` explains it, so no breaker counts it. */
  callerSized?: boolean | undefined;
  /**
   * With `failureClass: 'not_configured'`: the setting that would make the route callable here, as
   * the caller may be told it (a local environment variable's name, e.g. `OPENAI_API_KEY`). Never
   * a value, never where a deployment keeps its keys. Absent: the message names the provider only.
   */
  setting?: string | undefined;
  /**
   * A message safe to show the caller (upstream message for invalid requests). Never contains
   * an API key or prompt text.
   */
  message: string;
  cause?: unknown;
}

/** The only error a `ChatModel` throws. Raw SDK errors are wrapped, never passed on. */
export class ProviderError extends SwitchyardError {
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly failureClass: FailureClass;
  readonly retryAfterMs: number | undefined;
  readonly timeoutPhase: TimeoutPhase | undefined;
  readonly callerSized: boolean;
  readonly setting: string | undefined;
  /**
   * Prompt tokens the upstream reported before its stream failed (Anthropic's `message_start`),
   * set by the adapter that saw them; undefined when it reported none. The usage of an
   * interrupted stream counts these before an estimate (docs/concepts.md#usage-of-interrupted-streams).
   */
  reportedInputTokens: number | undefined;

  constructor(fields: ProviderErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'ProviderError';
    this.provider = fields.provider;
    this.model = fields.model;
    this.status = fields.status;
    this.failureClass = fields.failureClass;
    this.retryAfterMs = fields.retryAfterMs;
    this.timeoutPhase = fields.timeoutPhase;
    this.callerSized = fields.callerSized === true;
    this.setting = fields.setting;
  }
}
