import type { Breakers } from '../breaker/breakers.js';
import type { Capabilities, Capability } from '../capabilities/capability.js';
import type { CapacityRefusal, RouteCapacity } from '../capacity/route-capacity.js';
import type { RetrySettings } from '../catalog/retry-config-schema.js';
import type { SelectionSettings } from '../catalog/selection-config-schema.js';
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
  UnsupportedSkip,
} from '../ledger/ledger-entry.js';
import type { Clock, Random, SetTimer, Sleep } from '../time.js';
import type { RouteSignals } from './route-signals.js';
import type { AfterOutputPolicy, ContinuedLabel } from './stream-continuation.js';

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
  /** What the route can carry (its family's, with the model's overrides); undefined: everything. */
  capabilities?: Capabilities | undefined;
  /**
   * True when the route takes a trailing assistant message and continues it (its family's
   * `capabilities.prefill`, narrowed per model): only such a route may continue a broken stream.
   * Default false.
   */
  prefill?: boolean | undefined;
  /** The model's context window in tokens (catalog `contextWindow`); undefined: not declared. */
  contextWindow?: number | undefined;
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
  /**
   * What a committed stream that breaks does (`streaming.afterOutput`,
   * docs/concepts.md#streams-cut-after-output). Default `error`.
   */
  afterOutput?: AfterOutputPolicy | undefined;
  /** Whether a failed route is retried within the request (docs/concepts.md#retry-policy). Default: `drain` (none). */
  retry?: RetrySettings | undefined;
  /** How a route is chosen inside a tier (docs/concepts.md#selection-strategies). Default: `weighted`. */
  selection?: SelectionSettings | undefined;
}

export interface RouterDeps {
  clock: Clock;
  random: Random;
  sleep: Sleep;
  /**
   * The attempts' timers. Default: made of `sleep` (`timerOfSleep`); the wiring passes
   * `setTimeout`'s, which costs no `AbortController` per attempt.
   */
  timer?: SetTimer | undefined;
  breakers: Breakers;
  /** The callable model for a route key (docs/concepts.md#routes-and-substitution); undefined when it is not configured. */
  models(key: string): RouteModel | undefined;
  /**
   * The route keys of a model key, in the order they are tried. Default: the model key alone (a
   * single-route model, whose one route key is its model key).
   */
  routesOf?(modelKey: string): readonly string[];
  ledger: LedgerSink;
  /**
   * This container's route signals (latency, success, in flight), fed by every attempt and read by
   * the `adaptive` and `cost` strategies. Default: none (those strategies then know nothing).
   */
  signals?: RouteSignals | undefined;
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
   * What the request needs a route to carry (`needsOf`, docs/concepts.md#capabilities): a route
   * lacking any of them is skipped, fail-open included. Default: nothing.
   */
  needs?: readonly Capability[] | undefined;
  /**
   * The request's estimated size in tokens (prompt estimate plus the output it asks for, when it
   * says): models whose `contextWindow` is smaller are passed over before any call
   * (docs/concepts.md#context-windows). Absent: none is.
   */
  contextTokens?: number | undefined;
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
  | 'continuation'
  | 'waitedMs'
  | 'selection'
>;

/**
 * How a committed attempt finally ended: completely (with usage) or with an error after output.
 * `usageEstimated`: the usage is the gateway's estimate (docs/concepts.md#usage-of-interrupted-streams).
 */
export type Settlement =
  | { usage?: Usage | undefined; usageEstimated?: boolean | undefined }
  | { error: ProviderError; usage?: Usage | undefined; usageEstimated?: boolean | undefined };

/** A committed stream that broke: the failure, the usage billed for it, and what the caller had. */
export interface StreamBreak {
  error: ProviderError;
  /** The usage billed for the broken attempt (reported, else estimated). */
  usage: Usage;
  usageEstimated: boolean;
  /** The answer's text so far, every attempt of it. */
  text: string;
  /** True once any tool-call event went out. */
  toolCall: boolean;
}

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
   * Ends the answering attempt's upstream call alone (a committed stream's idle limit), with
   * `reason` as its signal's reason; the caller's signal stays as it is. Absent on answers that
   * did not come from an attempt (a last resort).
   */
  stop?: ((reason: unknown) => void) | undefined;
  /**
   * Writes the answering attempt's ledger line and breaker sample and the request line. Called
   * once: at once for a plain answer, when the stream ends for a stream.
   */
  settle(settlement: Settlement): Promise<void>;
  /** Set when no route answered and the pipeline's last resort did (docs/design.md#last-resort). */
  degraded?: DegradedKind | undefined;
  /**
   * Streams whose pipeline continues after output (`streaming.afterOutput`): settles the broken
   * attempt and asks a route that takes a prefill to continue. Resolves with the continuation,
   * committed (its first event arrived), or undefined when none may or could continue: then the
   * request line is written (`partial`, the original failure) and the caller gets the original
   * error. Called instead of `settle`, at most once. Absent: nothing continues.
   */
  resume?: ((broken: StreamBreak) => Promise<RouteSuccess<T> | undefined>) | undefined;
  /** On a continuation: its label (the route that broke, the caller's output tokens then, this route). */
  continued?: ContinuedLabel | undefined;
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
  /** The routes skipped because they cannot carry the request, when any was. */
  unsupported?: UnsupportedSkip[] | undefined;
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
