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
import type {
  AttemptRecord,
  LimitHit,
  RouteFailure,
  RouteModel,
  RouteRequest,
  RouterDeps,
} from './route-types.js';

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
  /** Tokens the attempt used, when the upstream said. */
  usage?: Usage | undefined;
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

  /** `startedAt`: the request's start, ms since the epoch. */
  constructor(
    private readonly request: RouteRequest,
    private readonly deps: RouterDeps,
    private readonly startedAt: number,
  ) {}

  /** The trail so far, e.g. `a:429,a~azure:429,b:200` (route keys: docs/concepts.md#routes-and-substitution). */
  route(): string {
    return this.trail.join(',');
  }

  /** Counts a committed attempt (status 200 in the trail) before it settles. */
  commit({ record, routeKey }: { record: AttemptRecord; routeKey: string }): void {
    this.attempts.push(record);
    this.markSkipped(record);
    this.trail.push(`${routeKey}:200`);
  }

  /**
   * Routes passed over for account-route cooling go in the trail before the attempt chosen
   * instead, as `!<route key>:cooling`: the `!` marks an entry that is not an attempt (no route key
   * can start with it), so readers that count attempts drop those entries.
   */
  private markSkipped(record: AttemptRecord): void {
    this.markSkips(record.skipped ?? []);
  }

  /** `!<route key>:cooling`, `!<route key>:full` or `!<route key>:quota` (docs/concepts.md#bulkheads). */
  private markSkips(skipped: readonly SkippedRoute[]): void {
    for (const skip of skipped) {
      this.trail.push(`!${skip.route}:${skip.reason === 'route_cooling' ? 'cooling' : skip.reason}`);
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
    const mark = `${ended.routeKey}:${error ? (error.status ?? error.failureClass) : 200}`;
    if (phase === 'after_output') this.trail[this.trail.length - 1] = mark;
    else {
      this.attempts.push(record);
      this.markSkipped(record);
      this.trail.push(mark);
    }
    this.writeAttempt(ended);
    // The committed attempt is the request's last: its request line comes before the sample.
    if (phase === 'after_output') this.writeRequest(settledReason(error), record.model, error?.failureClass);
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
    const failure = {
      ok: false as const,
      reason,
      ...(capacity?.refusal ? { capacity: capacity.refusal } : {}),
      attempts: this.attempts,
      route: this.route(),
      error: this.lastError,
      ...(this.unconfigured.size > 0 ? { unconfigured: this.unconfigured } : {}),
      ...(limit ? { limit } : {}),
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

  private writeAttempt({ record, route, phase, usage }: EndedAttempt): void {
    const costUsd = costOf(usage, route.price);
    this.usage = addUsage(this.usage, usage);
    this.cost += costUsd ?? 0;
    const { requestId, pipeline } = this.request;
    this.ledger({ type: 'attempt', requestId, pipeline, ...record, phase, usage, costUsd });
  }

  private writeRequest(
    reason: TerminalReason,
    model?: string,
    failureClass?: FailureClass,
    outcome: { degraded?: DegradedKind | undefined; limit?: SubstitutionLimit | undefined } = {},
  ): void {
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
      latencyMs: this.deps.clock.now() - this.startedAt,
      usage: this.usage,
      costUsd: this.cost,
      stream,
      ...(outcome.degraded ? { degraded: outcome.degraded } : {}),
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

/** How a committed request ended: fully, cut by its caller, or cut by the upstream. */
function settledReason(error: ProviderError | undefined): TerminalReason {
  if (!error) return 'success';
  return error.failureClass === 'cancelled' ? 'cancelled' : 'partial';
}
