import type { Breakers } from '../breaker/breakers.js';
import type { CapacityRefusal, RouteCapacity } from '../capacity/route-capacity.js';
import type { CallOptions, ChatModel, Usage } from '../chat/chat-model.js';
import type { Tier } from '../dsl/types.js';
import type { ProviderError } from '../failures/provider-error.js';
import type { Price } from '../ledger/cost.js';
import type {
  AttemptLedgerEntry,
  DegradedKind,
  LedgerSink,
  SubstitutionLimit,
  TerminalReason,
} from '../ledger/ledger-entry.js';
import type { Clock, Random, Sleep } from '../time.js';

/**
 * The time limits of one attempt on a route (docs/configuration.md#timeouts), each in ms and
 * counted from the attempt's start but `idleMs`. Worked out once, in the catalog, from the
 * route's `timeouts` and `timeoutMs`.
 */
export interface AttemptTimeouts {
  /** Until the TCP (and TLS) connection is up; the HTTP transport enforces it per socket. */
  connectMs: number;
  /** Until the first byte: a plain request's response headers, a stream's first content event (its commit). */
  firstByteMs: number;
  /** Until a plain answer is complete. A stream's attempt ends at its commit, so after it only `idleMs` applies. */
  totalMs: number;
  /** After a stream's commit: the longest silence between two events before the stream ends with an error event. */
  idleMs: number;
  /**
   * The route's expected output rate, in tokens per second: a plain answer's total limit grows by
   * the time the caller's `max_tokens` takes at it. Absent: `DEFAULT_OUTPUT_TOKENS_PER_SEC` (20).
   */
  outputTokensPerSec?: number | undefined;
}

/** A model the router may call, with what the catalog says about it. */
export interface RouteModel {
  model: ChatModel;
  /** The attempt's time limits on this route. */
  timeouts: AttemptTimeouts;
  price?: Price | undefined;
}

/** Attempt settings of one pipeline (docs/design.md#the-attempt-loop), after per-pipeline overrides. */
export interface RoutePolicy {
  /** Upstream attempts per request. Default 3. */
  maxAttempts: number;
  /** Time budget of a whole request in ms, from its start. Default 15000. */
  deadlineMs: number;
  /** Fall back when a model's context window is exceeded, instead of stopping. Default false. */
  fallbackOnContextLength: boolean;
  /** `forbid`: only the first tier's models may answer. Default `allow` (docs/configuration.md#routes-and-substitution). */
  substitution: 'allow' | 'forbid';
  /** Highest tier (1-based) that may answer; undefined: every tier. Default undefined. */
  maxTier?: number | undefined;
}

export interface RouterDeps {
  clock: Clock;
  random: Random;
  sleep: Sleep;
  breakers: Breakers;
  /** The callable model for a route key (docs/concepts.md#routes-and-substitution); undefined when it is not configured. */
  models(key: string): RouteModel | undefined;
  /**
   * The route keys of a model key, in the order they are tried. Default: the model key alone (a
   * single-route model, whose one route key is its model key).
   */
  routesOf?(modelKey: string): readonly string[];
  ledger: LedgerSink;
  /** Bulkheads and declared quotas (docs/concepts.md#bulkheads). Absent: none. */
  capacity?: RouteCapacity | undefined;
}

export interface RouteRequest {
  /** The gateway's own request id (a job's id for a job run): the ledger's `requestId`. */
  requestId: string;
  /** The caller's `x-request-id`, when it sent one: the request line's `clientRequestId`. */
  clientRequestId?: string | undefined;
  pipeline: string;
  tiers: readonly Tier[];
  policy: RoutePolicy;
  /** Aborts when the caller goes away. */
  signal?: AbortSignal | undefined;
  stream: boolean;
  /**
   * The caller's `max_tokens` of a plain chat answer: the attempt's total limit makes room for
   * that much output (docs/configuration.md#timeouts). Absent for streams, embeddings, and
   * requests that set none.
   */
  maxOutputTokens?: number | undefined;
  /** Tokens one attempt reserves under a declared `tokensPerMinute` quota (`attemptTokenEstimate`). Default 0. */
  tokenEstimate?: number | undefined;
  /**
   * A failure's request line waits for its `conclude` (a last resort may still answer,
   * docs/design.md#last-resort). Default: written when the loop ends.
   */
  deferFailureLine?: boolean | undefined;
}

/**
 * One upstream call. For a plain request it resolves with the whole answer; for a stream, with
 * the stream once its first event has arrived (the commit boundary).
 */
export type AttemptCall<T> = (model: ChatModel, options: CallOptions) => Promise<T>;

/** What the router remembers of one attempt: its ledger line without the request's fields and phase. */
export type AttemptRecord = Pick<
  AttemptLedgerEntry,
  | 'attempt'
  | 'tier'
  | 'model'
  | 'provider'
  | 'action'
  | 'step'
  | 'outcome'
  | 'status'
  | 'retryAfterMs'
  | 'timeoutPhase'
  | 'callerSized'
  | 'latencyMs'
  | 'skipped'
  | 'recovery'
  | 'rampShare'
>;

/** How a committed attempt finally ended: completely (with usage) or with an error after output. */
export type Settlement = { usage?: Usage | undefined } | { error: ProviderError; usage?: Usage | undefined };

export interface RouteSuccess<T> {
  ok: true;
  value: T;
  /** The model key that answered. */
  model: string;
  provider: string;
  attempts: AttemptRecord[];
  /** The trail so far, ending with the answering model, e.g. `a:429,b:200`. */
  route: string;
  /** The answering route's `idleMs`: after the commit it bounds the silence between chunks. */
  idleMs: number;
  /** The answering attempt's signal: aborted when the caller goes away. */
  signal: AbortSignal;
  /**
   * Writes the answering attempt's ledger line and breaker sample and the request line. Called
   * once: at once for a plain answer, when the stream ends for a stream.
   */
  settle(settlement: Settlement): Promise<void>;
  /** Set when no route answered and the pipeline's last resort did (docs/design.md#last-resort). */
  degraded?: DegradedKind | undefined;
}

export interface RouteFailure {
  ok: false;
  reason: Exclude<TerminalReason, 'success' | 'partial'>;
  /** The substitution limit that kept the request from going on, when one did. */
  limit?: LimitHit | undefined;
  /** Set when routes were full or out of quota (docs/concepts.md#bulkheads): why, and when to try again. */
  capacity?: CapacityRefusal | undefined;
  attempts: AttemptRecord[];
  route: string;
  /** The failure that ended the request, if an attempt was made. */
  error?: ProviderError | undefined;
  /**
   * Per provider whose attempts were `not_configured`, the setting that would configure it here
   * (`ProviderError.setting`), when its access names one; in attempt order.
   */
  unconfigured?: Map<string, string | undefined> | undefined;
  /**
   * With `deferFailureLine`: writes the request line, as a last-resort answer of that kind or, with
   * none, as this failure. Call it exactly once.
   */
  conclude?: ((degraded?: DegradedKind) => void) | undefined;
}

/** A pipeline limit in force: which setting, and the highest tier it lets answer (1 for `substitution: forbid`). */
export interface LimitHit {
  setting: SubstitutionLimit;
  maxTier: number;
}

export type RouteResult<T> = RouteSuccess<T> | RouteFailure;
