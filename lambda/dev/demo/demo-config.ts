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
 * the scenario to the base URL of its simulated upstream. No provider names a key: a local
 * upstream without `apiKeyEnv` is called with a placeholder.
 */
export function buildDemoConfig(scenario: DemoScenario, urls: ReadonlyMap<string, string>): SwitchyardConfig {
  const providers: Record<string, unknown> = {};
  const models: Record<string, unknown> = {};
  for (const p of scenario.providers) {
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
  });
}
