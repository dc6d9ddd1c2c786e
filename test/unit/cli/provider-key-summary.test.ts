import { describe, expect, it } from 'vitest';
import { keySummaryLines, providerKeyStates } from '../../../lambda/cli/provider-key-summary.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const config = parseConfig({
  providers: {
    keyed: { type: 'openai', baseURL: 'https://a.example/v1', apiKeyEnv: 'KEYED_KEY' },
    local: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
    deployed: { type: 'openai', baseURL: 'https://b.example/v1', apiKeySecret: '/switchyard/keys/deployed' },
    unused: { type: 'openai', baseURL: 'https://c.example/v1', apiKeyEnv: 'UNUSED_KEY' },
  },
  models: {
    k: { provider: 'keyed', model: 'k' },
    l: { provider: 'local', model: 'l' },
    d: { provider: 'deployed', model: 'd' },
  },
  pipelines: { p: { chain: 'k,l,d' } },
});

describe('provider key summary', () => {
  it('lists the providers some model uses: live with their variable, a keyless one as needing none', () => {
    expect(providerKeyStates(config, { KEYED_KEY: 'x', HOME: '/nonexistent' })).toEqual([
      { provider: 'keyed', state: 'live', via: 'KEYED_KEY' },
      { provider: 'local', state: 'live', via: 'no key needed' },
      { provider: 'deployed', state: 'missing', setting: 'providers.deployed.apiKeyEnv in the config' },
    ]);
  });

  it('counts a blank variable as no key', () => {
    const states = providerKeyStates(config, { KEYED_KEY: ' ', HOME: '/nonexistent' });
    expect(states[0]).toEqual({ provider: 'keyed', state: 'missing', setting: 'KEYED_KEY' });
  });

  it('prints one line for the live providers and one naming what the rest need', () => {
    expect(keySummaryLines(providerKeyStates(config, { HOME: '/nonexistent' }))).toEqual([
      'providers live: local (no key needed)',
      'providers without a key: keyed (set KEYED_KEY), deployed (set providers.deployed.apiKeyEnv in the config); their models are skipped (not_configured): set the variable and restart',
    ]);
  });

  it('says none when nothing is live, and prints no second line when nothing is missing', () => {
    expect(keySummaryLines([])).toEqual(['providers live: none']);
  });
});
