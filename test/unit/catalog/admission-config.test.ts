import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/core/catalog/parse-config.js';

const withAdmission = (admission: unknown) =>
  parseConfig({
    providers: { x: { type: 'openai', baseURL: 'http://127.0.0.1:1' } },
    models: { a: { provider: 'x', model: 'm' } },
    pipelines: { p: { chain: 'a' } },
    admission,
  });

describe('admission config', () => {
  it('limits nothing and fails rate limits open, spend closed, when left out', () => {
    expect(withAdmission(undefined).admission).toEqual({
      keys: {},
      defaultKey: {},
      pipelines: {},
      charsPerToken: 4,
      onStoreFailure: { requests: 'open', tokens: 'open', spend: 'closed' },
    });
  });

  it.each([
    [{ keys: { alice: { usdPerDay: 0 } } }, /admission\.keys\.alice\.usdPerDay/],
    [{ defaultKey: { requestsPerMinute: 1.5 } }, /admission\.defaultKey\.requestsPerMinute/],
    [{ pipelines: { nope: { tokensPerMinute: 10 } } }, /admission\.pipelines\.nope: names no pipeline/],
    [{ keys: { alice: { rpm: 5 } } }, /admission\.keys\.alice/],
    [{ onStoreFailure: { spend: 'maybe' } }, /admission\.onStoreFailure\.spend/],
  ])('refuses %j naming the field', (admission, message) => {
    expect(() => withAdmission(admission)).toThrow(message);
  });

  it('accepts a limit set per key, per pipeline and by default', () => {
    const config = withAdmission({
      keys: { alice: { requestsPerMinute: 60, tokensPerMinute: 100_000, usdPerDay: 5 } },
      defaultKey: { usdPerDay: 1 },
      pipelines: { p: { requestsPerMinute: 600 } },
    });
    expect(config.admission.keys.alice).toEqual({
      requestsPerMinute: 60,
      tokensPerMinute: 100_000,
      usdPerDay: 5,
    });
  });
});
