import { describe, expect, it } from 'vitest';
import { buildDemoConfig, QUOTA_MINUTE_MARGIN } from '../../../lambda/dev/demo/demo-config.js';
import { createDemoScenario } from '../../../lambda/dev/demo/demo-scenario.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('the demo declares its quotas', () => {
  const scenario = createDemoScenario(60);
  const urls = new Map(scenario.providers.map((p) => [p.provider, 'http://127.0.0.1:9/v1']));

  it('by default: each simulated provider quota exactly as the provider enforces it, on a minute 10 % longer', () => {
    expect(scenario.declaredQuotas).toBe(true);
    const config = buildDemoConfig(scenario, urls);
    // 400 ms plus QUOTA_MINUTE_MARGIN: the loopback's jitter at the demo's 150× speed.
    expect(config.capacity.quotaMinuteMs).toBe(440);
    expect(QUOTA_MINUTE_MARGIN).toBe(0.1);
    expect(config.capacity.quotas).toEqual({
      'openai-sim': { 'gpt-4o-mini': { requestsPerMinute: 12 } },
      'google-sim': { 'gemini-2.0-flash': { requestsPerMinute: 10 } },
      'openrouter-sim': { 'meta-llama/llama-3.3-70b-instruct': { requestsPerMinute: 250 } },
    });
  });

  it('declares nothing when asked not to (the gateway learns the quotas from 429s)', () => {
    const config = buildDemoConfig({ ...scenario, declaredQuotas: false }, urls);
    expect(config.capacity.quotas).toEqual({});
    expect(config.capacity.quotaMinuteMs).toBe(60_000);
  });

  it('refuses --declare-quotas (the old opt-in, now a no-op) together with --no-declared-quotas', async () => {
    const { code, stdout, stderr } = await runCliCaptured([
      'demo',
      '--declare-quotas',
      '--no-declared-quotas',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'switchyard demo: --declare-quotas and --no-declared-quotas contradict each other; give one',
    );
  });
});
