import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSsmChainStore } from '../../lambda/aws/ssm-chains.js';
import { createCliSsmClient } from '../../lambda/cli/ssm-cli-support.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const PARAM = '/switchyard/chains/p';
const REQUESTS = 1_000;
/**
 * 10 % of 1,000 draws has a standard deviation of √(1000 · 0.1 · 0.9) ≈ 9.5 requests: ± 3 points
 * is more than three of them. The draws are seeded, so the count is the same on every run.
 */
const TOLERANCE_POINTS = 3;

const aws = useOperatorAws({});
let h: GatewayHarness;
let configPath: string;

const chain = (...args: string[]) => runCliCaptured(['chain', ...args, '--config', configPath], aws.env);

/** `n` requests in order; per answer its variant header and the model that answered. */
async function askMany(n: number) {
  const answers: { variant: string | null; model: string | null }[] = [];
  for (let i = 0; i < n; i += 1) {
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    answers.push({
      variant: res.headers.get('x-switchyard-chain-variant'),
      model: res.headers.get('x-switchyard-model'),
    });
  }
  return answers;
}

beforeAll(async () => {
  const overrides = createSsmChainStore({ client: createCliSsmClient(aws.env), ssmPrefix: '/switchyard' });
  h = await startGatewayHarness({ p: { chain: 'a' } }, { overrides, random: seededRandom(2026) });
  configPath = writeTempConfig(h.config);
});
afterAll(() => h.close());

describe('a canary chain change (local gateway, fake SSM, fake upstream, seeded random)', () => {
  it(`sends 10 % ± ${TOLERANCE_POINTS} points of ${REQUESTS} requests to the canary, labelled, and abort returns all traffic`, async () => {
    const set = await chain('set', 'p', 'b', '--canary', '10');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('pipeline p sends 10 % of its requests to the canary: b');
    expect(set.stdout).toContain('the rest stays on: its config chain (a)');
    const pipelines = await (await fetch(`${h.url}/v1/pipelines`)).json();
    expect(pipelines.data[0]).toMatchObject({
      chain: 'a',
      canary: { chain: 'b', tiers: [['b']], percent: 10 },
    });

    const answers = await askMany(REQUESTS);
    const canary = answers.filter((a) => a.variant === 'canary');
    const stable = answers.filter((a) => a.variant === 'stable');
    expect(canary.length + stable.length).toBe(REQUESTS);
    expect(Math.abs((canary.length / REQUESTS) * 100 - 10)).toBeLessThanOrEqual(TOLERANCE_POINTS);
    expect(canary.every((a) => a.model === 'b')).toBe(true);
    expect(stable.every((a) => a.model === 'a')).toBe(true);

    // The ledger says the same as the headers, on the request lines and on every attempt line.
    const lines = h.requests();
    expect(lines.filter((l) => l.variant === 'canary')).toHaveLength(canary.length);
    expect(h.attempts().filter((l) => l.variant === 'canary')).toHaveLength(canary.length);

    const ledger = join(configPath, '..', 'ledger.jsonl');
    writeFileSync(ledger, `${h.ledger.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const status = await chain('status', 'p', '--ledger', ledger);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${REQUESTS} request lines of the ledger since then`);
    expect(status.stdout).toMatch(
      new RegExp(`^stable +a \\(config\\) +${stable.length} +100\\.0 % +1\\.00 `, 'm'),
    );
    expect(status.stdout).toMatch(new RegExp(`^canary +b +${canary.length} +100\\.0 % +1\\.00 `, 'm'));

    const abort = await chain('abort', 'p');
    expect(abort.code).toBe(0);
    expect(abort.stdout).toContain('every request routes on its config chain again: a');
    expect(aws.ssm.value(PARAM)).toBeUndefined();
    const after = await askMany(100);
    expect(after.every((a) => a.variant === null && a.model === 'a')).toBe(true);
  }, 120_000);

  it('promote makes the canary the override for every request', async () => {
    expect((await chain('set', 'p', 'c')).code).toBe(0);
    expect((await chain('set', 'p', 'b', '--canary', '50')).code).toBe(0);
    expect((await chain('get', 'p')).stdout).toMatch(/^canary +50 % of requests on b since /m);
    const refused = await chain('set', 'p', 'a');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a canary of b at 50 % is running on p; promote or abort it first');

    const promote = await chain('promote', 'p');
    expect(promote.code).toBe(0);
    expect(promote.stdout).toContain('promoted the canary of p: every request now routes on: b');
    expect(aws.ssm.value(PARAM)).toBe('b');
    const after = await askMany(20);
    expect(after.every((a) => a.variant === null && a.model === 'b')).toBe(true);
    await chain('clear', 'p');
  });

  it('aborting a canary over an SSM override returns to that override', async () => {
    await chain('set', 'p', 'c');
    await chain('set', 'p', 'b', '--canary', '10');
    const abort = await chain('abort', 'p');
    expect(abort.stdout).toContain('every request routes on: c');
    expect(aws.ssm.value(PARAM)).toBe('c');
    await chain('clear', 'p');
  });

  it('with --auto-abort, stops sending to a failing canary once its failure rate reaches the breaker threshold', async () => {
    const set = await chain('set', 'p', 'b', '--canary', '50', '--auto-abort');
    expect(set.stdout).toContain('auto-abort: each container sends every request to the stable chain');
    h.openai.setDefault('model-b', { status: 503 });
    const variants: (string | null)[] = [];
    for (let i = 0; i < 60; i += 1) {
      const res = await h.post({ model: 'p', ...HELLO });
      await res.arrayBuffer();
      variants.push(res.headers.get('x-switchyard-chain-variant'));
    }
    // Every canary request fails: the default breaker (5 samples, 30 %) stops it at the fifth.
    const fifth = variants.map((v, i) => (v === 'canary' ? i : -1)).filter((i) => i >= 0)[4] ?? -1;
    expect(fifth).toBeGreaterThan(0);
    expect(variants.filter((v) => v === 'canary')).toHaveLength(5);
    expect(variants.slice(fifth + 1).every((v) => v === 'stable')).toBe(true);
    // The stored canary is the operator's to finish.
    expect(aws.ssm.value(PARAM)).toContain('"canary"');
    h.openai.reset();
    await chain('abort', 'p');
  });

  it('says so when there is no canary to finish', async () => {
    for (const action of ['promote', 'abort']) {
      const out = await chain(action, 'p');
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(
        'no canary is running on p; start one with: switchyard chain set p "<chain>" --canary 10',
      );
    }
  });
});
