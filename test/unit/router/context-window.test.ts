import { describe, expect, it } from 'vitest';
import { raiseFloor, windowAllows } from '../../../lambda/core/router/context-window.js';
import { routeGenerate } from '../../../lambda/core/router/route-chat.js';
import type { RouteModel, RoutePolicy } from '../../../lambda/core/router/route-types.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';

describe('context-window fit', () => {
  it.each([
    [undefined, {}, true],
    [undefined, { demand: 1_000_000, floor: 10 }, true],
    [1000, { demand: 1000 }, true],
    [1000, { demand: 1001 }, false],
    [1000, { floor: 1000 }, false],
    [1001, { floor: 1000 }, true],
    [2000, { demand: 1500, floor: 1000 }, true],
  ])('a window of %s tokens with %o: %s', (window, bounds, allowed) => {
    expect(windowAllows(window, bounds)).toBe(allowed);
  });

  it('raises the floor to the larger window; an undeclared window leaves it', () => {
    expect(raiseFloor(undefined, 8000)).toBe(8000);
    expect(raiseFloor(8000, 4000)).toBe(8000);
    expect(raiseFloor(8000, undefined)).toBe(8000);
  });
});

const OK = { ok: { content: 'hi' } } as const;
const TOO_LONG = { fail: 'context_length' as const, status: 400 };
const WINDOWS: Record<string, number | undefined> = {
  small: 8_000,
  same: 8_000,
  big: 128_000,
  open: undefined,
};

/** The router over scripted models whose routes declare the windows of `WINDOWS`. */
function harness(models: Record<string, unknown[]>, tiers: string[][], policy: Partial<RoutePolicy> = {}) {
  const h = createRouterHarness({ models: models as never, tiers: tiersOf(tiers), policy });
  const sized = (key: string): RouteModel | undefined => {
    const route = h.deps.models(key);
    return route && { ...route, contextWindow: WINDOWS[key] };
  };
  const route = (contextTokens?: number) =>
    routeGenerate(
      {
        requestId: 'r',
        pipeline: 'p',
        tiers: tiersOf(tiers),
        policy: {
          maxAttempts: 3,
          deadlineMs: 15_000,
          fallbackOnContextLength: false,
          substitution: 'allow',
          ...policy,
        },
        stream: false,
        contextTokens,
      },
      { ...h.deps, models: sized },
      { messages: [{ role: 'user', content: 'hi' }] },
    );
  return { ...h, go: route };
}

describe('context-window-aware fallback', () => {
  it('after context_length_exceeded goes past models whose window is not larger, to a larger one', async () => {
    const h = harness({ small: [TOO_LONG], same: [OK], big: [OK] }, [['small'], ['same'], ['big']], {
      fallbackOnContextLength: true,
    });
    const result = await h.go();
    expect(result.ok && result.model).toBe('big');
    expect(result.route).toBe('small:400,!same:context,big:200');
    expect(h.calls('same')).toBe(0);
  });

  it('still stops at context_length_exceeded when the pipeline does not fall back on it', async () => {
    const h = harness({ small: [TOO_LONG], big: [OK] }, [['small'], ['big']]);
    const result = await h.go();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe('stopped');
    expect(h.calls('big')).toBe(0);
  });

  it('ends with the upstream refusal when no larger model is left', async () => {
    const h = harness({ big: [TOO_LONG], small: [OK] }, [['big'], ['small']], {
      fallbackOnContextLength: true,
    });
    const result = await h.go();
    expect(!result.ok && result.reason).toBe('stopped');
    expect(!result.ok && result.error?.failureClass).toBe('context_length');
    expect(result.route).toBe('big:400,!small:context');
    expect(h.calls('small')).toBe(0);
  });

  it('a model that declares no window is never ruled out', async () => {
    const h = harness({ small: [TOO_LONG], open: [OK] }, [['small'], ['open']], {
      fallbackOnContextLength: true,
    });
    expect((await h.go()).route).toBe('small:400,open:200');
  });

  it('with an estimate passes over too-small models before any call, at exactly the window', async () => {
    const fits = harness({ small: [OK], big: [OK] }, [['small'], ['big']]);
    expect((await fits.go(8_000)).route).toBe('small:200');
    const over = harness({ small: [OK], big: [OK] }, [['small'], ['big']]);
    const result = await over.go(8_001);
    expect(result.route).toBe('!small:context,big:200');
    expect(over.calls('small')).toBe(0);
  });

  it('refuses a request larger than every window of the chain without calling any', async () => {
    const h = harness({ small: [OK], big: [OK] }, [['small'], ['big']]);
    const result = await h.go(200_000);
    expect(!result.ok && result.reason).toBe('stopped');
    expect(!result.ok && result.error?.failureClass).toBe('context_length');
    expect(result.route).toBe('!small:context,!big:context');
    expect(h.calls('small') + h.calls('big')).toBe(0);
  });
});
