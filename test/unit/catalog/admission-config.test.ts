import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

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
      adHocChains: true,
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
    [{ adHocChains: 'no' }, /admission\.adHocChains: must be true, false or a list of at most 100 chains/],
    [{ keys: { alice: { adHocChains: [''] } } }, /admission\.keys\.alice\.adHocChains/],
    [{ defaultKey: { adHocChains: false } }, /admission\.defaultKey/],
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

  it('accepts ad-hoc chain settings per key and globally, and limits under the reserved pipeline adhoc', () => {
    const config = withAdmission({
      adHocChains: false,
      keys: { alice: { adHocChains: ['a', '( a )'] }, bob: { adHocChains: true } },
      pipelines: { adhoc: { requestsPerMinute: 10 } },
    });
    expect(config.admission).toMatchObject({
      adHocChains: false,
      keys: { alice: { adHocChains: ['a', '( a )'] }, bob: { adHocChains: true } },
      pipelines: { adhoc: { requestsPerMinute: 10 } },
    });
  });

  it.each([
    [{ keys: { alice: { adHocChains: ['a', 'nope'] } } }, 'admission.keys.alice.adHocChains[1]', "'nope'"],
    [{ adHocChains: ['(zz|yy)'] }, 'admission.adHocChains[0]', "'(zz|yy)'"],
  ])('refuses at start-up an allow-list %j whose chain resolves to no model', (admission, field, chain) => {
    const config = withAdmission(admission);
    expect(() => createCatalog(config)).toThrow(expect.objectContaining({ path: field }));
    expect(() => createCatalog(config)).toThrow(`${chain} resolves to no model`);
  });

  it('refuses a pipeline named adhoc: the name is reserved for ad-hoc chains', () => {
    expect(() =>
      parseConfig({
        providers: { x: { type: 'openai', baseURL: 'http://127.0.0.1:1' } },
        models: { a: { provider: 'x', model: 'm' } },
        pipelines: { adhoc: { chain: 'a' } },
      }),
    ).toThrow(
      /pipelines\.adhoc: 'adhoc' is reserved for ad-hoc chains \(limit them under admission\.pipelines\.adhoc\)/,
    );
  });
});
