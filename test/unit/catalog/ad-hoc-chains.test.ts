import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import {
  type AdHocChainSettings,
  adHocRefusal,
  isAdHoc,
  unresolvedAllowListEntry,
} from '../../../lambda/core/catalog/ad-hoc-chains.js';
import { adHocIdOf, createCatalog } from '../../../lambda/core/catalog/catalog.js';

const catalog = createCatalog(
  parseConfig({
    providers: { x: { type: 'openai', baseURL: 'http://127.0.0.1:1' } },
    models: { a: { provider: 'x', model: 'm-a', aliases: ['fast'] }, b: { provider: 'x', model: 'm-b' } },
  }),
);
const canonical = (chain: string) => adHocIdOf(catalog, chain);
const id = (chain: string) => canonical(chain) ?? 'unresolved';
const decide = (settings: AdHocChainSettings, key: string | undefined, chain: string) =>
  adHocRefusal(settings, key, id(chain), canonical)?.field;

describe('which ad-hoc chains a caller may send', () => {
  it('allows every chain by default (adHocChains true)', () => {
    expect(decide({ keys: {}, adHocChains: true }, undefined, '(a|b)')).toBeUndefined();
  });

  it.each([
    ['a caller without a key name', undefined, 'admission.adHocChains'],
    ['a key without its own setting', 'bob', 'admission.adHocChains'],
    ['a key with its own false', 'alice', 'admission.keys.alice.adHocChains'],
  ])('refuses %s by the setting in force', (_who, key, field) => {
    const settings = { keys: { alice: { adHocChains: false }, bob: {} }, adHocChains: false };
    expect(decide(settings, key, 'a')).toBe(field);
  });

  it('lets a key’s own true override a global false', () => {
    expect(
      decide({ keys: { alice: { adHocChains: true } }, adHocChains: false }, 'alice', 'a'),
    ).toBeUndefined();
  });

  it.each([
    ['(fast | b)', true],
    ['(m-a|b)', true],
    ['( a*1 | b )', true],
    ['(b|a)', false],
    ['(a|b*2)', false],
    ['a', false],
    ['(a|b),a', true],
  ])('with allow-list ["(a|b)"], %s is allowed: %s', (chain, allowed) => {
    const settings = { keys: {}, adHocChains: ['(a|b)'] };
    expect(decide(settings, undefined, chain)).toBe(allowed ? undefined : 'admission.adHocChains');
  });

  it('names the setting and the way out in its message, never the chain', () => {
    const refusal = adHocRefusal(
      { keys: { alice: { adHocChains: ['a'] } }, adHocChains: true },
      'alice',
      id('b'),
      canonical,
    );
    expect(refusal?.message).toBe(
      "this ad-hoc chain is not on this caller's allow-list (admission.keys.alice.adHocChains); name a pipeline in `model`, or a chain of that list",
    );
    expect(adHocRefusal({ keys: {}, adHocChains: false }, undefined, id('b'), canonical)?.message).toBe(
      'ad-hoc chains are turned off for this caller (admission.adHocChains); name a pipeline in `model`',
    );
  });
});

describe('the keys an ad-hoc chain decision reads', () => {
  it('applies the global setting to a key the admission section does not list', () => {
    expect(decide({ keys: { alice: { adHocChains: true } }, adHocChains: false }, 'carol', 'a')).toBe(
      'admission.adHocChains',
    );
  });

  it('never gives a caller without a key name the setting of a key called "undefined"', () => {
    const settings = { keys: { undefined: { adHocChains: true } }, adHocChains: false };
    expect(decide(settings, undefined, 'a')).toBe('admission.adHocChains');
  });

  it('resolves an allow-list once per settings object, however many requests it decides', () => {
    let resolved = 0;
    const counting = (chain: string) => {
      resolved += 1;
      return canonical(chain);
    };
    const settings = { keys: {}, adHocChains: ['(a|b)', 'b'] };
    for (let i = 0; i < 3; i++) adHocRefusal(settings, undefined, id('a'), counting);
    expect(resolved).toBe(2);
  });
});

describe('which pipeline ids are ad-hoc', () => {
  it.each([
    ['adhoc', true],
    ['chain:(a|b)', true],
    ['chain:', true],
    ['adhocs', false],
    ['Adhoc', false],
    ['support', false],
  ])('%s is ad-hoc: %s', (pipeline, adHoc) => {
    expect(isAdHoc(pipeline)).toBe(adHoc);
  });
});

describe('the start-up check of ad-hoc allow-lists', () => {
  it('passes allow-lists whose every chain resolves, and settings that are no list', () => {
    const settings = {
      keys: { alice: { adHocChains: ['b'] }, bob: { adHocChains: false }, carol: {} },
      adHocChains: ['(a|b)', 'fast'],
    };
    expect(unresolvedAllowListEntry(settings, canonical)).toBeUndefined();
    expect(unresolvedAllowListEntry({ keys: {}, adHocChains: true }, canonical)).toBeUndefined();
  });

  it('names the global entry that resolves to no model by its index', () => {
    const settings = { keys: {}, adHocChains: ['a', 'nope', 'also-nope'] };
    expect(unresolvedAllowListEntry(settings, canonical)).toStrictEqual({
      field: 'admission.adHocChains[1]',
      problem: "'nope' resolves to no model",
    });
  });

  it('names a key’s entry that resolves to no model, after a global list that resolves', () => {
    const settings = {
      keys: { alice: { adHocChains: true }, bob: { adHocChains: ['b', '(zz|yy)'] } },
      adHocChains: ['a'],
    };
    expect(unresolvedAllowListEntry(settings, canonical)).toStrictEqual({
      field: 'admission.keys.bob.adHocChains[1]',
      problem: "'(zz|yy)' resolves to no model",
    });
  });
});
