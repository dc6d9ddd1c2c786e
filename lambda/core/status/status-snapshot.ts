/**
 * What the status page shows, as one JSON object (`GET /v1/status`, docs/http-api.md): each
 * pipeline's chain and its source, every breaker, the recent requests with their attempts, and the
 * admission limits and spend when there are any.
 */
import type { UsageLine } from '../admission/read-usage.js';
import type { BreakerView, Gateway } from '../gateway/gateway.js';
import type { Clock } from '../time.js';
import type { PipelineSpend, RecentRequest, RecentRequests } from './recent-requests.js';

export interface StatusPipeline {
  name: string;
  chain: string;
  source: string;
  tiers: string[][];
  warnings: string[];
}

export interface StatusSnapshot {
  object: 'status';
  /** ISO 8601. */
  generatedAt: string;
  /** How often the page polls, in ms (config `statusPage.refreshMs`). */
  refreshMs: number;
  pipelines: StatusPipeline[];
  breakers: BreakerView[];
  recent: RecentRequest[];
  /** Spend and requests of this process since it started, per pipeline. */
  spend: PipelineSpend[];
  /** Every admission limit of the config's named keys and pipelines; empty when none is set. */
  limits: UsageLine[];
  /** Set when the limits could not be read (the store failed); the rest is still shown. */
  limitsError: string | null;
}

export interface StatusDeps {
  gateway: Pick<Gateway, 'pipelines' | 'breakers'>;
  recent: RecentRequests;
  /** Every configured admission limit and what it holds; store errors propagate. */
  limits: () => Promise<UsageLine[]>;
  clock: Clock;
  refreshMs: number;
}

export async function statusSnapshot(deps: StatusDeps): Promise<StatusSnapshot> {
  const [targets, breakers, limits] = await Promise.all([
    deps.gateway.pipelines(),
    deps.gateway.breakers(),
    deps.limits().then(
      (lines) => ({ lines, error: null }),
      (error: unknown) => ({
        lines: [] as UsageLine[],
        error: `limits unreadable (${error instanceof Error ? error.name : 'error'})`,
      }),
    ),
  ]);
  return {
    object: 'status',
    generatedAt: new Date(deps.clock.now()).toISOString(),
    refreshMs: deps.refreshMs,
    pipelines: targets.map((t) => ({
      name: t.pipeline,
      chain: t.chain,
      source: t.source,
      tiers: t.tiers.map((tier) => tier.members.map((m) => m.key)),
      warnings: t.warnings.map((w) => w.message),
    })),
    breakers: breakers ?? [],
    recent: deps.recent.list(),
    spend: deps.recent.spend(),
    limits: limits.lines,
    limitsError: limits.error,
  };
}
