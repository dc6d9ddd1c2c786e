import type { Capability } from '../capabilities/capability.js';
import type { Usage } from '../chat/chat-model.js';
import type { TimeoutPhase } from '../failures/attempt-timeout.js';
import type { FailureClass } from '../failures/failure-class.js';

/** How an attempt came to be (docs/design.md#vocabulary). */
export type AttemptAction = 'first' | 'retry' | 'fallback' | 'fail-open';

/**
 * What an attempt is to the one before it (docs/design.md#vocabulary): `retry` the same route
 * again, `route` the same model through another route, `substitute` another model. The first
 * attempt has none.
 */
export type AttemptStep = 'retry' | 'route' | 'substitute';

/** The pipeline setting that kept a request from degrading further: `substitution` or `maxTier`. */
export type SubstitutionLimit = 'substitution' | 'maxTier';

/** Whether output had reached the caller when the attempt ended (the streaming commit boundary). */
export type AttemptPhase = 'before_output' | 'after_output';

/** Why a request ended (docs/design.md#evidence-the-ledger-and-headers). */
export type TerminalReason =
  | 'success'
  | 'exhausted'
  | 'deadline'
  | 'cancelled'
  | 'partial'
  | 'stopped'
  | 'last_resort';

/** Which chain of a running canary a request drew (docs/design.md#timed-overrides-and-canaries). */
export type ChainVariant = 'canary' | 'stable';

/** Where a last-resort answer came from (docs/design.md#last-resort). */
export type DegradedKind = 'template' | 'cache';

/**
 * A route the selection passed over only because its account route was cooling after a 429
 * (docs/concepts.md#account-route-cooling) — its own breaker would have let it be picked.
 */
export interface CoolingSkip {
  /** The route key. */
  route: string;
  /**
   * `route_cooling`: its account route cools after a 429; `full`: at its bulkhead; `quota`: its
   * account route's declared quota is spent for now (docs/concepts.md#bulkheads).
   */
  reason: 'route_cooling' | 'full' | 'quota';
  /** When the cooling ends, or (full, quota) when trying again makes sense (ISO 8601). */
  until: string;
  /** The pipeline whose 429 set that cooling (this one or another). */
  cooledBy?: string | undefined;
}

/**
 * A route passed over because it cannot carry what the request needs (docs/concepts.md#capabilities):
 * it is never called with the part stripped.
 */
export interface UnsupportedSkip {
  /** The route key. */
  route: string;
  reason: 'unsupported';
  /** The capabilities the request needs and the route lacks, e.g. `["images", "tools"]`. */
  missing: Capability[];
}

/** A route the selection passed over without an attempt; the trail shows it as `!<route key>:<why>`. */
export type SkippedRoute = CoolingSkip | UnsupportedSkip;

/**
 * The score that decided which route a selection strategy chose (docs/concepts.md#selection-strategies).
 * Lower scores win.
 */
export interface SelectionDecision {
  /** The strategy that chose: `adaptive` or `cost` (a `weighted` choice records none). */
  strategy: string;
  /**
   * The chosen route's score. `adaptive`: its cost, latency ms × (in flight + 1) / (success rate ×
   * weight); `cost`: its blended price, input + output US$ per million tokens (null in JSON for a
   * route without a price).
   */
  score: number;
  /** The route it was compared with and that route's score; absent when it was the only one. */
  rival?: { route: string; score: number } | undefined;
}

/**
 * How a `ramp` breaker let an attempt through (docs/concepts.md#breaker-recovery): `probe`, the
 * one attempt of a probe slot while it is open; `ramp`, admitted by the ramp's share.
 */
export type RecoveryAdmission = 'probe' | 'ramp';

/**
 * One line per attempt. Never holds prompt text, output text or secrets. An attempt with outcome
 * `not_configured` sent nothing (this process has no key for the provider): it has no `status`.
 */
export interface AttemptLedgerEntry {
  type: 'attempt';
  /** The gateway's own id of the request, as on its request line. */
  requestId: string;
  pipeline: string;
  /** 1-based attempt number within the request. */
  attempt: number;
  /** 1-based tier the model was picked from. */
  tier: number;
  model: string;
  provider: string;
  action: AttemptAction;
  /** What this attempt is to the previous one; absent on the first attempt. */
  step?: AttemptStep | undefined;
  outcome: 'ok' | FailureClass;
  /** Upstream HTTP status, when there was one (200 for a success). */
  status?: number | undefined;
  phase: AttemptPhase;
  latencyMs: number;
  usage?: Usage | undefined;
  /** US dollars, from the catalog's prices; absent when the model has no price. */
  costUsd?: number | undefined;
  /** Cooling hint the upstream gave, in ms. */
  retryAfterMs?: number | undefined;
  /**
   * With outcome `timeout`: which limit ran out, `connect`, `first_byte`, `total` or (after a
   * stream's commit) `idle` (docs/configuration.md#timeouts).
   */
  timeoutPhase?: TimeoutPhase | undefined;
  /**
   * With outcome `timeout` (phase `total`): `true` when the caller's own `max_tokens` explains it
   * (docs/configuration.md#timeouts), so the breaker did not count it; absent otherwise.
   */
  callerSized?: true | undefined;
  /** Routes passed over for account-route cooling before this attempt was chosen; absent when none. */
  skipped?: SkippedRoute[] | undefined;
  /** Set when the route's breaker is recovering: a probe, or admitted by the ramp; absent otherwise. */
  recovery?: RecoveryAdmission | undefined;
  /** With `recovery: "ramp"`: the share (percent) the ramp admitted at the time. */
  rampShare?: number | undefined;
  /** While a canary runs: which chain the request drew; absent otherwise. */
  variant?: ChainVariant | undefined;
  /**
   * `true` when `usage` is the gateway's estimate: a stream that broke before its upstream
   * reported usage (docs/concepts.md#usage-of-interrupted-streams). Absent otherwise.
   */
  usageEstimated?: true | undefined;
  /**
   * On an attempt that continues a broken stream: the route key that broke and the output tokens
   * the caller had received by then (docs/concepts.md#streams-cut-after-output). Absent otherwise.
   */
  continuation?: { from: string; atToken: number } | undefined;
  /**
   * Ms the loop waited before this attempt: a retry policy `contract` same-route retry's jittered
   * backoff or the upstream's `Retry-After` (docs/concepts.md#retry-policy); absent otherwise.
   */
  waitedMs?: number | undefined;
  /** How a non-default selection strategy chose this route, and by what score; absent for `weighted`. */
  selection?: SelectionDecision | undefined;
}

/** One line per request, written when it ends. */
export interface RequestLedgerEntry {
  type: 'request';
  /** The gateway's own id (`req_<32 hex>`, a job's id for a job run): what attempt lines join on. */
  requestId: string;
  /**
   * The caller's `x-request-id`, when it sent a usable one (docs/concepts.md#evidence-headers-and-the-ledger):
   * a label to find the request by, never unique and never a key. Absent otherwise.
   */
  clientRequestId?: string | undefined;
  pipeline: string;
  reason: TerminalReason;
  /** Attempts made, i.e. attempt lines (`not_configured` ones included, though they sent nothing). */
  attempts: number;
  /** The model key that answered (success or partial). */
  model?: string | undefined;
  /** The trail, e.g. `gpt-mini:429,gemini-flash:429,llama-or:200`. */
  route: string;
  /** Failure class that ended the request, when it did not succeed (a last resort included). */
  failureClass?: FailureClass | undefined;
  /** With reason `last_resort`: the answer was the pipeline's template or its cached last good answer. */
  degraded?: DegradedKind | undefined;
  /** The pipeline limit that refused to degrade further, when one ended the request. */
  limit?: SubstitutionLimit | undefined;
  /** Every route of the allowed tiers skipped because it cannot carry the request; absent when none was. */
  unsupported?: UnsupportedSkip[] | undefined;
  latencyMs: number;
  usage: Usage;
  costUsd: number;
  stream: boolean;
  /** While a canary runs: which chain the request drew; absent otherwise. */
  variant?: ChainVariant | undefined;
  /**
   * A stream continued after a break (docs/concepts.md#streams-cut-after-output): the route key
   * that broke first, the output tokens the caller had then, and the route key that finished it
   * (the last one, when it was continued more than once). Absent otherwise.
   */
  continued?: { from: string; atToken: number; by: string } | undefined;
}

export type LedgerEntry = AttemptLedgerEntry | RequestLedgerEntry;

/** Where ledger lines go (stdout JSON lines locally, Powertools logger in Lambda, an array in tests). */
export type LedgerSink = (entry: LedgerEntry) => void;
