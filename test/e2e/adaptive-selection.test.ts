import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

/** Sends `n` requests one after another and counts which model answered each. */
async function shareOf(n: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    const model = res.headers.get('x-switchyard-model') ?? 'none';
    counts[model] = (counts[model] ?? 0) + 1;
  }
  return counts;
}

describe('selection strategies over HTTP', () => {
  it('adaptive: a fake slowed tenfold (without failing) loses its share, and the choice is explained', async () => {
    h = await startGatewayHarness(
      { p: { chain: '(a|b)', selection: 'adaptive' } },
      { random: seededRandom(4) },
    );
    h.openai.setDefault('model-a', { latencyMs: 250 });
    h.openai.setDefault('model-b', { latencyMs: 25 });
    const counts = await shareOf(30);
    // Weighted would split about 15/15; adaptive sends the slowed one a probe's worth at most.
    expect(counts.a ?? 0).toBeLessThanOrEqual(3);
    expect(counts.b).toBeGreaterThanOrEqual(27);
    const last = (h.attempts() as AttemptLedgerEntry[]).at(-1);
    expect(last?.selection).toMatchObject({ strategy: 'adaptive', rival: { route: 'a' } });
    expect(last?.selection?.score).toBeLessThan(last?.selection?.rival?.score ?? 0);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.headers.get('x-switchyard-selection')).toMatch(
      /^adaptive;score=\d+(\.\d)?;rival=a;rival-score=\d+(\.\d)?$/,
    );
  });

  it('weighted, the default, keeps splitting between the two and records no selection field', async () => {
    h = await startGatewayHarness({ p: { chain: '(a|b)' } }, { random: seededRandom(4) });
    h.openai.setDefault('model-a', { latencyMs: 100 });
    h.openai.setDefault('model-b', { latencyMs: 10 });
    const counts = await shareOf(20);
    expect(counts.a).toBeGreaterThanOrEqual(5);
    expect((h.attempts() as AttemptLedgerEntry[]).every((l) => l.selection === undefined)).toBe(true);
  });

  it('cost: the cheaper route answers while it is healthy', async () => {
    h = await startGatewayHarness(
      { p: { chain: '(a|b)', selection: { strategy: 'cost', minSuccessRate: 0.9 } } },
      {
        configure: (config) => {
          config.models.b = { ...config.models.b, price: { inputPerMTok: 0.1, outputPerMTok: 0.2 } };
        },
      },
    );
    const counts = await shareOf(5);
    expect(counts).toEqual({ b: 5 });
    const decision = (h.attempts() as AttemptLedgerEntry[]).at(-1)?.selection;
    expect(decision).toMatchObject({ strategy: 'cost', rival: { route: 'a', score: 10 } });
    expect(decision?.score).toBeCloseTo(0.3, 9);
  });

  it('names the bad field of a selection setting', async () => {
    await expect(
      startGatewayHarness({ p: { chain: '(a|b)', selection: { strategy: 'fastest' } } }),
    ).rejects.toThrow(/pipelines\.p\.selection\.strategy/);
  });
});
