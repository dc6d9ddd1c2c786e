import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSsmChainStore } from '../../lambda/aws/ssm-chains.js';
import { createCliSsmClient } from '../../lambda/cli/ssm-cli-support.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { createFakeClock } from '../helpers/fake-clock.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const PARAM = '/switchyard/chains/p';
const aws = useOperatorAws({});
const clock = createFakeClock(Date.now());
let h: GatewayHarness;
let configPath: string;

/** The operator's command against the same fake SSM the gateway reads its overrides from. */
const chain = (...args: string[]) =>
  runCliCaptured(['chain', ...args, '--config', configPath], aws.env, process.cwd(), undefined, clock);

const ask = async () => {
  const res = await h.post({ model: 'p', ...HELLO });
  expect(res.status).toBe(200);
  return {
    model: res.headers.get('x-switchyard-model'),
    variant: res.headers.get('x-switchyard-chain-variant'),
  };
};

const pipelineP = async () => {
  const body = await (await fetch(`${h.url}/v1/pipelines`)).json();
  return body.data.find((d: { name: string }) => d.name === 'p');
};

/** The first attempt of the last request. */
const firstAttemptOfLast = () => {
  const last = h.requests().at(-1);
  return h.attempts().find((a) => a.requestId === last?.requestId && a.attempt === 1);
};

beforeAll(async () => {
  const overrides = createSsmChainStore({ client: createCliSsmClient(aws.env), ssmPrefix: '/switchyard' });
  h = await startGatewayHarness({ p: { chain: 'a' } }, { overrides, clock });
  configPath = writeTempConfig(h.config);
});
afterAll(() => h.close());

describe('a timed override with --for (local gateway, fake SSM, fake upstream, injected clock)', () => {
  it('routes on the pinned chain until its end, then returns by itself to the config chain', async () => {
    const set = await chain('set', 'p', 'b', '--for', '2h', '--pin');
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(
      /^pipeline p routes on: b until \S+Z; pinned: breaker openings of its routes are ignored$/m,
    );
    expect(set.stdout).toContain('then it returns by itself to: its config chain (a)');
    expect(await ask()).toEqual({ model: 'b', variant: null });

    const shown = await pipelineP();
    expect(shown).toMatchObject({ source: 'ssm', chain: 'b', pinned: true, canary: null });
    const until = Date.parse(shown.until);
    expect(until - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000);

    const get = await chain('get', 'p');
    expect(get.stdout).toContain(
      `until      ${shown.until} (a pin: breaker openings of its routes are ignored)`,
    );
    expect(get.stdout).toContain('then       the next source (config: a)');

    clock.set(until - 1);
    expect((await ask()).model).toBe('b');
    clock.set(until);
    expect((await ask()).model).toBe('a');
    expect(await pipelineP()).toMatchObject({ source: 'config', chain: 'a', until: null, pinned: false });
  });

  it('returns to the SSM override that was in force before it', async () => {
    expect((await chain('set', 'p', 'c')).code).toBe(0);
    const set = await chain('set', 'p', 'b', '--until', new Date(clock.now() + 60_000).toISOString());
    expect(set.stdout).toContain('then it returns by itself to: c');
    expect((await ask()).model).toBe('b');
    clock.advance(60_000);
    expect((await ask()).model).toBe('c');
    expect((await pipelineP()).source).toBe('ssm');
    expect((await chain('get', 'p')).stdout).toMatch(/^ended +the timed override of b ended at /m);
    await chain('clear', 'p');
  });

  it('with --pin keeps its route after the breaker opens; without, the next tier takes over', async () => {
    h.openai.setDefault('model-b', { status: 429 });
    expect((await chain('set', 'p', 'b,c', '--for', '1h')).code).toBe(0);
    // Each 429 also cools b's account route for rateLimit.coolMs (5 s): wait it out each time,
    // well inside the breaker's openMs (15 min).
    for (let i = 0; i < 2; i += 1) {
      await ask();
      clock.advance(6_000);
    }
    await ask();
    expect(firstAttemptOfLast()).toMatchObject({ model: 'c' });

    expect((await chain('set', 'p', 'b,c', '--for', '1h', '--pin')).code).toBe(0);
    expect(await ask()).toEqual({ model: 'c', variant: null });
    expect(firstAttemptOfLast()).toMatchObject({ model: 'b', action: 'first', outcome: 'rate_limited' });
    const breakers = await (await fetch(`${h.url}/v1/breakers?pipeline=p`)).json();
    expect(breakers.data.find((b: { model: string }) => b.model === 'b')).toMatchObject({ state: 'open' });
    h.openai.reset();
    await chain('clear', 'p');
  });

  it('refuses bad durations and times with one clear line, writing nothing', async () => {
    const before = aws.ssm.requests.filter((r) => r.target === 'PutParameter').length;
    for (const [args, message] of [
      [['--for', '2 hours'], '--for must be a duration such as 2h, 90m, 1h30m or 45s'],
      [['--until', '2020-01-01T00:00:00Z'], '--until 2020-01-01T00:00:00Z is not in the future'],
      [['--until', 'friday'], '--until must be an ISO 8601 time with a zone'],
      [['--pin'], '--pin needs an end: add --for DURATION or --until TIME'],
      [['--for', '1h', '--canary', '10'], '--canary cannot be combined with --for, --until or --pin'],
    ] as const) {
      const out = await chain('set', 'p', 'b', ...args);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(message);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(aws.ssm.requests.filter((r) => r.target === 'PutParameter')).toHaveLength(before);
    expect(aws.ssm.value(PARAM)).toBeUndefined();
  });

  it('prints the MODEL_<P> value for the env override with --env, and writes nothing', async () => {
    const out = await chain('set', 'p', 'b', '--for', '2h', '--pin', '--env');
    expect(out.code).toBe(0);
    const value = /^MODEL_P='(.*)'$/m.exec(out.stdout)?.[1] ?? '';
    expect(JSON.parse(value)).toMatchObject({ timed: { chain: 'b', pin: true } });
    expect(aws.ssm.value(PARAM)).toBeUndefined();

    h.env.MODEL_P = value;
    expect((await ask()).model).toBe('b');
    clock.advance(2 * 3_600_000);
    expect((await ask()).model).toBe('a');
    delete h.env.MODEL_P;
  });
});
