import { unsupportedLabel } from '../capabilities/route-fit.js';
import type { CapacityRefusal } from '../capacity/route-capacity.js';
import type { Usage } from '../chat/chat-model.js';
import { type FailureClass, isRouteSample } from '../failures/failure-class.js';
import type { ProviderError } from '../failures/provider-error.js';
import { addUsage, costOf } from '../ledger/cost.js';
import type {
  AttemptPhase,
  DegradedKind,
  LedgerEntry,
  SkippedRoute,
  SubstitutionLimit,
  TerminalReason,
} from '../ledger/ledger-entry.js';
import type { UnsupportedSkips } from './next-attempt.js';
import type {
  AttemptRecord,
  LimitHit,
  RouteFailure,
  RouteModel,
  RouteRequest,
  RouterDeps,
} from './route-types.js';
import type { ContinuedLabel } from './stream-continuation.js';

/** A book without capability skips (a request that needs nothing a route may lack). */
const NO_SKIPS: { unsupported: UnsupportedSkips } = { unsupported: { rest: () => [], all: () => [] } };

/** One attempt as it ended, for {@link AttemptBook.record}. */
export interface EndedAttempt {
  record: AttemptRecord;
  route: RouteModel;
  /** The route key: the breaker and trail key of this attempt. */
  routeKey: string;
  /** When the attempt started, ms since the epoch (its latency is measured from here). */
  startedAt: number;
  /** `before_output`: the attempt failed before the commit; `after_output`: a committed attempt settled. */
  phase: AttemptPhase;
  /** The failure, if it failed. */
  error?: ProviderError | undefined;
  /** Tokens the attempt used, when the upstream said (or, with `usageEstimated`, as the gateway estimated them). */
  usage?: Usage | undefined;
  /** True when `usage` is the gateway's estimate (a stream that broke before its usage report). */
  usageEstimated?: boolean | undefined;
  /**
   * A committed stream that broke and may be continued: the output tokens the caller had by then.
   * The trail marks it `<route>:cut@<n>` and the request line waits for the continuation.
   */
  cutAt?: number | undefined;
}

/** The bookkeeping of one request: its attempts, trail, usage, cost, ledger lines and breaker samples. */
export class AttemptBook {
  /** Every attempt so far, in order (the committed one included). */
  readonly attempts: AttemptRecord[] = [];
  private readonly trail: string[] = [];
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private cost = 0;
  private lastError: ProviderError | undefined;
  /** Providers that had no key here, with the setting that would give them one. */
  private readonly unconfigured = new Map<string, string | undefined>();
  /** The model of the first committed attempt: the request line's `model` (and the headers'). */
  private answered: string | undefined;
  /** Set once a continuation committed: the request line's `continued`. */
  private continued: ContinuedLabel | undefined;

  /**
   * `startedAt`: the request's start, ms since the epoch. `skips`: where the routes skipped for
   * lacking a capability come from (the planner); default none.
   */
  constructor(
    private readonly request: RouteRequest,
    private readonly deps: RouterDeps,
    private readonly startedAt: number,
    private readonly skips: { unsupported: UnsupportedSkips } = NO_SKIPS,
  ) {}

  /** The trail so far, e.g. `a:429,a~azure:429,b:200` (route keys: docs/concepts.md#routes-and-substitution). */
  route(): string {
    return this.trail.join(',');
  }

  /**
   * Counts a committed attempt before it settles: status 200 in the trail, or `continued` for a
   * continuation of a broken stream (its `label` goes on the request line).
   */
  commit({ record, routeKey }: { record: AttemptRecord; routeKey: string }, label?: ContinuedLabel): void {
    this.attempts.push(record);
    this.markSkipped(record);
    this.answered ??= record.model;
    if (label) this.continued = label;
    this.trail.push(`${routeKey}:${label ? 'continued' : 200}`);
  }

  /**
   * Routes or models passed over for a reason of their own go in the trail as `!<key>:<reason>`
   * (not attempts: never called): `prefill` for a continuation's route that takes no prefill,
   * `context` for a model whose context window is too small for the request.
   */
  skip(keys: readonly string[], reason: 'prefill' | 'context'): void {
    for (const key of keys) this.trail.push(`!${key}:${reason}`);
  }

  /**
   * Routes passed over that no attempt record carries (a continuation's routes refused at their
   * bulkhead or quota when no continuation attempt followed): the trail shows them all the same.
   */
  passOver(skipped: readonly SkippedRoute[]): void {
    this.markSkips(skipped);
  }

  /**
   * Ends a request no route could be asked: `error` (the gateway's own) is its failure, and it
   * stops (e.g. a request larger than every model's context window).
   */
  refuse(error: ProviderError): RouteFailure {
    this.lastError = error;
    return this.finish('stopped');
  }

  /**
   * Ends a request whose committed stream broke and was not continued: its request line, as
   * `partial` (or `cancelled`) with the failure that broke it, whatever a continuation tried after.
   */
  endBroken(error: ProviderError): void {
    this.writeRequest(settledReason(error), this.answered, error.failureClass);
  }

  private markSkipped(record: { skipped?: SkippedRoute[] | undefined }): void {
    this.markSkips(record.skipped ?? []);
  }

  /**
   * Routes passed over go in the trail before the attempt chosen instead, as `!<route key>:cooling`
   * (account-route cooling), `!<route key>:unsupported(images+tools)` (lacking capabilities),
   * `!<route key>:full` or `!<route key>:quota` (docs/concepts.md#bulkheads): the `!` marks an
   * entry that is not an attempt (no route key can start with it), so readers that count
   * attempts drop those entries.
   */
  private markSkips(skipped: readonly SkippedRoute[]): void {
    for (const skip of skipped) {
      const why =
        skip.reason === 'unsupported'
          ? unsupportedLabel(skip.missing)
          : skip.reason === 'route_cooling'
            ? 'cooling'
            : skip.reason;
      this.trail.push(`!${skip.route}:${why}`);
    }
  }

  /**
   * The one place an attempt is recorded, failed or settled after its commit alike: its outcome,
   * the trail, usage and cost, its ledger line, the request line when it was the committed one,
   * and its breaker sample. A local failure (`not_configured`) is this process's configuration,
   * not the upstream's health, and a timeout the caller's `max_tokens` explains is the caller's
   * request, not the route's: neither reaches the shared breaker store.
   */
  async record(ended: EndedAttempt): Promise<void> {
    const { record, error, phase } = ended;
    record.latencyMs = this.deps.clock.now() - ended.startedAt;
    if (error) {
      this.lastError = error;
      if (error.failureClass === 'not_configured' && !this.unconfigured.get(error.provider)) {
        this.unconfigured.set(error.provider, error.setting);
      }
      record.outcome = error.failureClass;
      record.status = error.status;
      // A hint that came after output is not this request's to act on (the ledger never showed one).
      if (phase === 'before_output') record.retryAfterMs = error.retryAfterMs;
      if (error.timeoutPhase) record.timeoutPhase = error.timeoutPhase;
      if (error.callerSized) record.callerSized = true;
    }
    const mark = `${ended.routeKey}:${trailMark(ended)}`;
    if (phase === 'after_output') this.trail[this.trail.length - 1] = mark;
    else {
      this.attempts.push(record);
      this.markSkipped(record);
      this.trail.push(mark);
    }
    this.writeAttempt(ended);
    // The committed attempt is the request's last (unless a continuation follows): its request line
    // comes before the sample.
    if (phase === 'after_output' && ended.cutAt === undefined)
      this.writeRequest(settledReason(error), this.answered ?? record.model, error?.failureClass);
    if (error && !isRouteSample(error)) return;
    // Breakers are per (pipeline, model, route): the route key is the model key for its own provider.
    await this.deps.breakers.record(this.request.pipeline, ended.routeKey, {
      at: this.deps.clock.now(),
      outcome: error?.failureClass ?? 'ok',
      retryAfterMs: record.retryAfterMs,
      ...(record.recovery === 'probe' ? { probe: true } : {}),
    });
  }

  /**
   * Ends a request that did not succeed: writes its request line, or with `deferFailureLine`
   * leaves that to the failure's `conclude` (a last resort may still answer). `limit`: the
   * pipeline limit that kept the request from degrading further, when one did.
   */
  finish(
    reason: RouteFailure['reason'],
    limit?: LimitHit,
    capacity?: { refusal: CapacityRefusal | undefined; skipped: readonly SkippedRoute[] },
  ): RouteFailure {
    // Routes refused for capacity after the last attempt: no attempt carries them, the trail does.
    if (capacity) this.markSkips(capacity.skipped);
    // Routes never reached because they cannot carry the request still belong in the trail.
    this.markSkipped({ skipped: this.skips.unsupported.rest() });
    const all = this.skips.unsupported.all();
    const unsupported = all.length > 0 ? all : undefined;
    const failure = {
      ok: false as const,
      reason,
      ...(capacity?.refusal ? { capacity: capacity.refusal } : {}),
      attempts: this.attempts,
      route: this.route(),
      error: this.lastError,
      ...(this.unconfigured.size > 0 ? { unconfigured: this.unconfigured } : {}),
      ...(limit ? { limit } : {}),
      ...(unsupported ? { unsupported } : {}),
    };
    const conclude = (degraded?: DegradedKind) =>
      this.writeRequest(degraded ? 'last_resort' : reason, undefined, this.lastError?.failureClass, {
        degraded,
        limit: limit?.setting,
      });
    if (this.request.deferFailureLine) return { ...failure, conclude };
    conclude();
    return failure;
  }

  private writeAttempt({ record, route, phase, usage, usageEstimated }: EndedAttempt): void {
    const costUsd = costOf(usage, route.price);
    this.usage = addUsage(this.usage, usage);
    this.cost += costUsd ?? 0;
    const { requestId, pipeline } = this.request;
    const estimated = usageEstimated && usage ? { usageEstimated: true as const } : {};
    this.ledger({ type: 'attempt', requestId, pipeline, ...record, phase, usage, costUsd, ...estimated });
  }

  private writeRequest(
    reason: TerminalReason,
    model?: string,
    failureClass?: FailureClass,
    outcome: { degraded?: DegradedKind | undefined; limit?: SubstitutionLimit | undefined } = {},
  ): void {
    const unsupported = this.skips.unsupported.all();
    const { requestId, clientRequestId, pipeline, stream } = this.request;
    this.ledger({
      type: 'request',
      requestId,
      ...(clientRequestId !== undefined ? { clientRequestId } : {}),
      pipeline,
      reason,
      attempts: this.attempts.length,
      model,
      route: this.route(),
      failureClass,
      ...(outcome.limit ? { limit: outcome.limit } : {}),
      ...(unsupported.length > 0 ? { unsupported } : {}),
      latencyMs: this.deps.clock.now() - this.startedAt,
      usage: this.usage,
      costUsd: this.cost,
      stream,
      ...(outcome.degraded ? { degraded: outcome.degraded } : {}),
      ...(this.continued ? { continued: this.continued } : {}),
    });
  }

  /** Evidence must never cost the caller the answer: a sink that throws (a full disk) is ignored. */
  private ledger(entry: LedgerEntry): void {
    try {
      this.deps.ledger(entry);
    } catch {
      // the sink reports its own failures
    }
  }
}

/**
 * The trail's word for how an attempt ended: `cut@<n>` for a broken stream a continuation may
 * take over, the status (else the failure class) of a failure, `continued` for a continuation
 * that finished, 200 for any other success.
 */
function trailMark({ error, cutAt, record }: EndedAttempt): string {
  if (cutAt !== undefined) return `cut@${cutAt}`;
  if (error) return String(error.status ?? error.failureClass);
  return record.continuation ? 'continued' : '200';
}

/** How a committed request ended: fully, cut by its caller, or cut by the upstream. */
function settledReason(error: ProviderError | undefined): TerminalReason {
  if (!error) return 'success';
  return error.failureClass === 'cancelled' ? 'cancelled' : 'partial';
}
