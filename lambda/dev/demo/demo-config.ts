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
 * the scenario to the base URL of its simulated upstream; `declareQuotas` declares each provider's
 * quota (`declaredQuota` of it) to the gateway. No provider names a key: a local
 * upstream without `apiKeyEnv` is called with a placeholder.
 */
export function buildDemoConfig(
  scenario: DemoScenario,
  urls: ReadonlyMap<string, string>,
  options: { declareQuotas?: boolean } = {},
): SwitchyardConfig {
  const providers: Record<string, unknown> = {};
  const models: Record<string, unknown> = {};
  const quotas: Record<string, Record<string, { requestsPerMinute: number }>> = {};
  for (const p of scenario.providers) {
    quotas[p.provider] = { [p.rawModel]: { requestsPerMinute: declaredQuota(p.quotaPerMinute) } };
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
    // With --declare-quotas: each simulated provider's quota (docs/concepts.md#declared-quotas), on the demo's clock.
    ...(options.declareQuotas ? { capacity: { quotas, quotaMinuteMs: scenario.minuteMs } } : {}),
  });
}

/**
 * The quota the demo declares for a provider that allows `perMinute` requests in each fixed
 * minute counted from the start of the run: five sixths of it, because the gateway's sliding
 * minute of six slices, aligned to the clock and not to the run's start, can overlap a provider
 * minute by one slice.
 */
export function declaredQuota(perMinute: number): number {
  return Math.max(1, Math.floor((perMinute * 5) / 6));
}
