import { describe, expect, it } from 'vitest';
import { buildDemoConfig, declaredQuota } from '../../../lambda/dev/demo/demo-config.js';
import { createDemoScenario } from '../../../lambda/dev/demo/demo-scenario.js';

describe('demo --declare-quotas', () => {
  const scenario = createDemoScenario(60);
  const urls = new Map(scenario.providers.map((p) => [p.provider, 'http://127.0.0.1:9/v1']));

  it('declares five sixths of each simulated provider quota, on the demo clock minute', () => {
    const config = buildDemoConfig(scenario, urls, { declareQuotas: true });
    expect(config.capacity.quotaMinuteMs).toBe(scenario.minuteMs);
    for (const p of scenario.providers) {
      expect(config.capacity.quotas[p.provider]).toEqual({
        [p.rawModel]: { requestsPerMinute: declaredQuota(p.quotaPerMinute) },
      });
    }
    expect([declaredQuota(6), declaredQuota(10), declaredQuota(1)]).toEqual([5, 8, 1]);
  });

  it('declares nothing by default', () => {
    expect(buildDemoConfig(scenario, urls).capacity.quotas).toEqual({});
  });
});
