/**
 * The gateway config of the demo: the simulated providers on loopback, one model per provider,
 * the main pipeline and the cron pipelines on the same chain, breaker times scaled down.
 */
import type { SwitchyardConfig } from '../../config/switchyard-config.js';
import { parseConfig } from '../../config/switchyard-config.js';
import { SwitchyardError } from '../../core/errors.js';
import { type DemoScenario, demoPipelines } from './demo-scenario.js';

/**
 * Builds (and validates, like any config file) the demo config. `urls` maps a provider name of
 * the scenario to the base URL of its simulated upstream. With `scenario.declaredQuotas` each
 * provider's quota is declared to the gateway as the simulated provider enforces it, on a quota
 * minute {@link QUOTA_MINUTE_MARGIN} longer than the provider's. No provider names a key: a local
 * upstream without `apiKeyEnv` is called with a placeholder.
 */
export function buildDemoConfig(scenario: DemoScenario, urls: ReadonlyMap<string, string>): SwitchyardConfig {
  const providers: Record<string, unknown> = {};
  const models: Record<string, unknown> = {};
  const quotas: Record<string, Record<string, { requestsPerMinute: number }>> = {};
  for (const p of scenario.providers) {
    quotas[p.provider] = { [p.rawModel]: { requestsPerMinute: p.quotaPerMinute } };
    const baseURL = urls.get(p.provider);
    if (baseURL === undefined)
      throw new SwitchyardError(`no simulated upstream for provider '${p.provider}'`);
    providers[p.provider] = { type: 'openai', baseURL };
    models[p.modelKey] = {
      provider: p.provider,
      model: p.rawModel,
      timeoutMs: scenario.attemptTimeoutMs,
      price: p.price,
    };
  }
  const pipelines: Record<string, unknown> = {};
  for (const name of demoPipelines(scenario)) {
    pipelines[name] = {
      chain: scenario.chain,
      description: name === scenario.mainPipeline ? 'what demo-day users call' : 'a scheduled job',
    };
  }
  return parseConfig({
    providers,
    models,
    pipelines,
    breaker: scenario.breaker,
    router: { maxAttempts: scenario.maxAttempts, deadlineMs: scenario.deadlineMs },
    // The status page, to watch the breakers open while the demo runs (its URL is printed).
    statusPage: { enabled: true, refreshMs: 1_000 },
    // Each simulated provider's quota (docs/concepts.md#declared-quotas), on the demo's clock; not with --no-declared-quotas.
    ...(scenario.declaredQuotas
      ? { capacity: { quotas, quotaMinuteMs: Math.round(scenario.minuteMs * (1 + QUOTA_MINUTE_MARGIN)) } }
      : {}),
  });
}

/**
 * How much longer than the simulated provider's the declared quota minute is: 0.1 (440 ms for
 * the 400 ms minute). The demo's clock runs 150× fast, but the time between the gateway's
 * reservation and the request's arrival at the provider (loopback, and the event loop all three
 * share) does not: 20 ms of it here is 3 s of provider time, where at real speed it is 0.03 % of
 * a minute. The margin covers that much; a longer stall of a busy machine still lets requests
 * reserved a minute apart arrive in the same provider minute, and meet a 429.
 */
export const QUOTA_MINUTE_MARGIN = 0.1;
