/**
 * The last requests of this process with their attempt trail, for the status page
 * (docs/operations.md#the-status-page). Built from ledger lines only, so it holds what the ledger
 * holds and nothing more: never prompt text, output text or a key.
 */
import { setBounded } from '../bounded-map.js';
import { stateScope } from '../catalog/ad-hoc-chains.js';
import type { AttemptLedgerEntry, LedgerEntry, RequestLedgerEntry } from '../ledger/ledger-entry.js';
import type { Clock } from '../time.js';

/** One attempt of a recent request. */
export interface RecentAttempt {
  attempt: number;
  tier: number;
  model: string;
  provider: string;
  action: AttemptLedgerEntry['action'];
  outcome: AttemptLedgerEntry['outcome'];
  status: number | null;
  latencyMs: number;
}

/** One ended request. */
export interface RecentRequest {
  /** When its request line was written (ISO 8601). */
  endedAt: string;
  /** The gateway's own id: the key its attempts were gathered by. */
  requestId: string;
  /** The caller's `x-request-id`, shown to find a request by; null when it sent none. */
  clientRequestId: string | null;
  pipeline: string;
  reason: RequestLedgerEntry['reason'];
  model: string | null;
  failureClass: string | null;
  latencyMs: number;
  costUsd: number;
  stream: boolean;
  /** The trail, e.g. `an:cut@40,an:continued` (docs/concepts.md#evidence-headers-and-the-ledger). */
  route: string;
  /** A stream continued after a break: the route that broke, the caller's output tokens then, the route that continued; null otherwise. */
  continued: { from: string; atToken: number; by: string } | null;
  attempts: RecentAttempt[];
}

/** What this process spent per pipeline since it started (from the request lines); every ad-hoc chain under `adhoc`. */
export interface PipelineSpend {
  pipeline: string;
  requests: number;
  costUsd: number;
}

export interface RecentRequests {
  record(entry: LedgerEntry): void;
  /** Newest first. */
  list(): RecentRequest[];
  spend(): PipelineSpend[];
}

/** Requests whose attempts are held while they run; past it the oldest is forgotten. */
const OPEN_REQUEST_LIMIT = 1_000;

/**
 * Keeps the last `size` requests; spend is added up per `scopeOf(pipeline)` (default `stateScope`:
 * every ad-hoc chain under `adhoc`).
 */
export function createRecentRequests(
  size: number,
  clock: Clock,
  scopeOf: (pipeline: string) => string = stateScope,
): RecentRequests {
  const running = new Map<string, RecentAttempt[]>();
  const ended: RecentRequest[] = [];
  const spend = new Map<string, PipelineSpend>();

  const onAttempt = (e: AttemptLedgerEntry) => {
    const trail = running.get(e.requestId) ?? [];
    trail.push({
      attempt: e.attempt,
      tier: e.tier,
      model: e.model,
      provider: e.provider,
      action: e.action,
      outcome: e.outcome,
      status: e.status ?? null,
      latencyMs: e.latencyMs,
    });
    setBounded(running, e.requestId, trail, OPEN_REQUEST_LIMIT);
  };
  const onRequest = (e: RequestLedgerEntry) => {
    const attempts = running.get(e.requestId) ?? [];
    running.delete(e.requestId);
    ended.unshift({
      endedAt: new Date(clock.now()).toISOString(),
      requestId: e.requestId,
      clientRequestId: e.clientRequestId ?? null,
      pipeline: e.pipeline,
      reason: e.reason,
      model: e.model ?? null,
      failureClass: e.failureClass ?? null,
      latencyMs: e.latencyMs,
      costUsd: e.costUsd,
      stream: e.stream,
      route: e.route,
      continued: e.continued ?? null,
      attempts,
    });
    if (ended.length > size) ended.length = size;
    // One row for every ad-hoc chain (`adhoc`), so callers' chains never push a pipeline's total out.
    const scope = scopeOf(e.pipeline);
    const total = spend.get(scope) ?? { pipeline: scope, requests: 0, costUsd: 0 };
    total.requests += 1;
    total.costUsd += e.costUsd;
    setBounded(spend, scope, total);
  };

  return {
    record: (entry) => (entry.type === 'attempt' ? onAttempt(entry) : onRequest(entry)),
    list: () => ended.map((r) => ({ ...r, attempts: [...r.attempts] })),
    spend: () => [...spend.values()].map((s) => ({ ...s })),
  };
}
