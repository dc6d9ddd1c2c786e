import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { chainReservation } from '../../../lambda/core/admission/chain-reservation.js';
import { plannedLimits } from '../../../lambda/core/admission/limit-plan.js';
import { estimateReservation } from '../../../lambda/core/admission/reservation-estimate.js';
import { admissionSchema } from '../../../lambda/core/catalog/admission-config-schema.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { parseChain } from '../../../lambda/core/dsl/parse-chain.js';

describe('reservation', () => {
  it('reserves the input estimate and every allowed output token at the given prices', () => {
    const r = estimateReservation(
      { inputChars: 401, maxOutputTokens: 1_000, price: { inputPerMTok: 1, outputPerMTok: 10 } },
      4,
    );
    // 401 characters at 4 a token: 101 tokens.
    expect(r).toEqual({ tokens: 1_101, costNano: 101 * 1_000 + 1_000 * 10_000 });
  });

  it('takes the largest output limit and the dearest prices of every route of the chain', () => {
    const config = parseConfig({
      providers: { x: { type: 'openai', baseURL: 'http://127.0.0.1:1' } },
      models: {
        cheap: {
          provider: 'x',
          model: 'm1',
          maxOutputTokens: 500,
          price: { inputPerMTok: 5, outputPerMTok: 1 },
        },
        dear: {
          provider: 'x',
          model: 'm2',
          maxOutputTokens: 2_000,
          price: { inputPerMTok: 1, outputPerMTok: 9 },
        },
      },
    });
    const catalog = createCatalog(config);
    const { tiers } = parseChain('cheap, dear', catalog);
    expect(chainReservation({ inputChars: 8, maxTokens: undefined }, tiers, catalog)).toEqual({
      inputChars: 8,
      maxOutputTokens: 2_000,
      price: { inputPerMTok: 5, outputPerMTok: 9 },
    });
    expect(chainReservation({ inputChars: 8, maxTokens: 42 }, tiers, catalog).maxOutputTokens).toBe(42);
  });
});

describe('limits that apply', () => {
  const settings = admissionSchema.parse({
    keys: { alice: { requestsPerMinute: 5 } },
    defaultKey: { usdPerDay: 2 },
    pipelines: { p: { tokensPerMinute: 100 } },
  });

  it.each([
    ['alice', 'p', ['admission.keys.alice.requestsPerMinute', 'admission.pipelines.p.tokensPerMinute']],
    ['bob', 'p', ['admission.defaultKey.usdPerDay', 'admission.pipelines.p.tokensPerMinute']],
    [undefined, undefined, []],
    ['bob', 'other', ['admission.defaultKey.usdPerDay']],
  ])('key %s on pipeline %s: %j', (key, pipeline, fields) => {
    expect(plannedLimits(settings, key, pipeline).map((l) => l.field)).toEqual(fields);
  });
});
