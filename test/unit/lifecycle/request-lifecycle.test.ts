import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { limitsSchema } from '../../../lambda/core/catalog/config-schema.js';
import { chatDemand } from '../../../lambda/core/lifecycle/request-demand.js';
import {
  createRequestLifecycle,
  type LifecycleCall,
} from '../../../lambda/core/lifecycle/request-lifecycle.js';
import { createJobHarness } from '../../helpers/job-harness.js';

const h = createJobHarness();
const catalog = createCatalog(h.config);
const bounds = limitsSchema.parse({ maxMessages: 2, maxOutputTokens: 100 });
const call = (over: Partial<LifecycleCall> = {}): LifecycleCall => ({
  model: 'p',
  keyName: 'team-a',
  use: 'chat',
  demand: chatDemand(2, 10, { tokens: 100, param: 'max_tokens' }),
  ...over,
});

describe('the request lifecycle', () => {
  const lifecycle = createRequestLifecycle({ gateway: h.gateway, catalog, bounds });

  it('takes exactly limits.maxMessages messages and refuses one more, before any target is resolved', () => {
    expect(lifecycle.bounds(call())).toBeUndefined();
    expect(lifecycle.bounds(call({ demand: chatDemand(3, 10, undefined) }))).toEqual({
      kind: 'over_bound',
      violation: { param: 'messages', message: 'messages: at most 2 messages per request, got 3' },
    });
  });

  it('resolves a pipeline, and refuses an output bound one over the limit in the field the door named', async () => {
    const ok = await lifecycle.target(call());
    expect(ok.ok && ok.value.pipeline).toBe('p');
    const over = await lifecycle.target(
      call({ demand: chatDemand(1, 10, { tokens: 101, param: 'max_completion_tokens' }) }),
    );
    expect(over).toEqual({
      ok: false,
      refusal: {
        kind: 'over_bound',
        violation: {
          param: 'max_completion_tokens',
          message: 'max_completion_tokens: at most 100 (the gateway limit), got 101',
        },
      },
    });
  });

  it('names the field of an unknown target, and refuses a chat chain on the embeddings use', async () => {
    expect(await lifecycle.target(call({ model: 'nope' }))).toMatchObject({
      ok: false,
      refusal: { kind: 'unknown_target', param: 'model' },
    });
    expect(await lifecycle.target(call({ use: 'embeddings' }))).toEqual({
      ok: false,
      refusal: {
        kind: 'wrong_use',
        message: "'p' names chat models; POST /v1/embeddings needs models with dimensions",
      },
    });
  });

  it('asks the ad-hoc gate with the caller key before the bounds of the models', async () => {
    const asked: (string | undefined)[] = [];
    const gated = createRequestLifecycle({
      gateway: h.gateway,
      catalog,
      bounds,
      adHocChains: async (keyName) => {
        asked.push(keyName);
        return { field: 'admission.keys.team-a.adHocChains', message: 'no ad-hoc chains for team-a' };
      },
    });
    const over = call({ demand: chatDemand(1, 10, { tokens: 999, param: 'max_tokens' }) });
    expect(await gated.target(over)).toEqual({
      ok: false,
      refusal: { kind: 'ad_hoc_refused', message: 'no ad-hoc chains for team-a' },
    });
    expect(asked).toEqual(['team-a']);
  });

  it('admits everything and reserves nothing without an admission service', async () => {
    const target = await lifecycle.target(call());
    if (!target.ok) throw new Error('expected a target');
    expect(await lifecycle.admit(call(), target.value)).toEqual({ ok: true, value: undefined });
  });
});
