import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCommand } from '../../../lambda/cli/serve-command.js';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { accountRouteId } from '../../../lambda/core/breaker/route-cooling.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import {
  DYNALITE_ENV,
  openBreakerTable,
  type RunningDynalite,
  startDynalite,
} from '../../helpers/dynalite.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { ABC_CONFIG } from '../../helpers/test-config.js';
import { containerOn } from './breaker-contract-harness.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

const dynamoEnv = (table?: string): NodeJS.ProcessEnv => ({
  ...DYNALITE_ENV,
  SWITCHYARD_STORE: 'dynamodb',
  AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
  ...(table ? { SWITCHYARD_TABLE: table } : {}),
});

describe('switchyard breakers', () => {
  it('prints the shared state from DynamoDB as a table and as JSON', async () => {
    const table = await openBreakerTable(dynalite);
    const clock = createFakeClock(Date.now());
    const c = containerOn(table.store, clock, DEFAULT_BREAKER_POLICY);
    await c.record('a', 'rate_limited');
    await c.record('a', 'rate_limited');
    await c.record('b', 'ok');
    await c.record('b', 'unavailable', { retryAfterMs: 60_000 });
    // Another pipeline's 429 on c's account route (provider `fake`, upstream `model-c`).
    const cooledUntil = clock.now() + 30_000;
    await table.store.coolRoute(
      accountRouteId('fake', 'model-c'),
      { at: clock.now(), pipeline: 'nightly', retryAfterMs: 30_000 },
      { coolMs: 5_000, maxMs: 60_000 },
    );
    const config = writeTempConfig(ABC_CONFIG);

    const json = await runCliCaptured(['breakers', '--config', config, '--json'], dynamoEnv(table.tableName));
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const views = JSON.parse(json.stdout).data;
    expect(views).toEqual([
      expect.objectContaining({
        model: 'a',
        state: 'open',
        openReason: 'consecutive_429',
        windowAttempts: 2,
      }),
      expect.objectContaining({ model: 'b', state: 'closed', windowAttempts: 2, windowFailures: 1 }),
      expect.objectContaining({ model: 'c', state: 'closed', windowAttempts: 0, consecutive429: 0 }),
    ]);
    expect(views[1].coolingUntil).toBe(new Date(clock.now() + 60_000).toISOString());
    expect(views[2]).toMatchObject({
      routeCoolingUntil: new Date(cooledUntil).toISOString(),
      routeCooledBy: 'nightly',
    });
    expect(views[0]).toMatchObject({ routeCoolingUntil: null, routeCooledBy: null });

    const text = await runCliCaptured(
      ['breakers', '--config', config, '--pipeline', 'p'],
      dynamoEnv(table.tableName),
    );
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^PIPELINE +MODEL +ROUTE +STATE +OPEN-UNTIL +REASON +WINDOW\(attempts\/failures\) +429-STREAK +COOLING-UNTIL +ROUTE-COOLING-UNTIL\(by\) +RECOVERY$/,
    );
    expect(lines[1]).toMatch(/^p +a +- +open +\S+Z +consecutive_429 +2\/2 +0 +- +- +-$/);
    expect(lines[2]).toMatch(/^p +b +- +closed +- +- +2\/1 +0 +\S+Z +- +-$/);
    expect(lines[3]).toMatch(/^p +c +- +closed +- +- +0\/0 +0 +- +\S+Z \(nightly\) +-$/);
    expect(lines).toHaveLength(4);
    table.close();
  });

  it('shows one breaker per route of a model with several routes, the first keeping the model’s own key', async () => {
    const table = await openBreakerTable(dynalite);
    const clock = createFakeClock(Date.now());
    const c = containerOn(table.store, clock, DEFAULT_BREAKER_POLICY);
    await c.record('a', 'ok');
    await c.record('a~azure', 'rate_limited');
    await c.record('a~azure', 'rate_limited');
    const config = writeTempConfig({
      ...ABC_CONFIG,
      providers: { ...ABC_CONFIG.providers, azure: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: {
        ...ABC_CONFIG.models,
        a: { provider: 'fake', model: 'model-a', routes: [{ provider: 'azure' }] },
      },
    });

    const json = await runCliCaptured(['breakers', '--config', config, '--json'], dynamoEnv(table.tableName));
    expect(JSON.parse(json.stdout).data.slice(0, 2)).toEqual([
      expect.objectContaining({ model: 'a', route: 'fake', state: 'closed', windowAttempts: 1 }),
      expect.objectContaining({ model: 'a', route: 'azure', state: 'open', openReason: 'consecutive_429' }),
    ]);
    const text = await runCliCaptured(['breakers', '--config', config], dynamoEnv(table.tableName));
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^p +a +fake +closed /);
    expect(lines[2]).toMatch(/^p +a +azure +open /);
    expect(lines[3]).toMatch(/^p +b +- +closed /);
    table.close();
  });

  it('shows where ramp breakers are on their way back: first probe, probing, ramp share', async () => {
    const table = await openBreakerTable(dynalite);
    const ramp = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' as const };
    // Opened one probe interval and a second ago, so the CLI (on the real clock) reads the present.
    const clock = createFakeClock(Date.now() - ramp.probeIntervalMs - 1_000);
    const c = containerOn(table.store, clock, ramp);
    for (const model of ['a', 'b', 'c']) {
      await c.record(model, 'rate_limited');
      await c.record(model, 'rate_limited');
    }
    const opened = clock.now();
    clock.advance(ramp.probeIntervalMs);
    // b: one probe claimed and answered; c: three probes answered, so its ramp starts.
    // The first slot is the probe schedule's first step after the opening.
    await c.breakers.claimProbe('p', 'b', opened + (ramp.probeSchedule[0]?.everyMs ?? 0));
    await c.record('b', 'ok', { probe: true });
    for (let i = 0; i < 3; i++) await c.record('c', 'ok', { probe: true });
    const config = writeTempConfig({ ...ABC_CONFIG, breaker: { recovery: 'ramp' } });

    const json = await runCliCaptured(['breakers', '--config', config, '--json'], dynamoEnv(table.tableName));
    const [a, b, cView] = JSON.parse(json.stdout).data;
    // The CLI reads with the real clock: the first probe slot of a is due.
    expect(a).toMatchObject({ recovery: 'ramp', state: 'open', phase: 'probing', nextProbeAt: null });
    // A probe success frees the slot at once: the next probe may follow now.
    expect(b).toMatchObject({ state: 'open', phase: 'probing', probeStreak: 1, nextProbeAt: null });
    expect(cView).toMatchObject({ state: 'closed', phase: 'ramp', rampShare: 10, openReason: null });
    expect(cView.rampUntil).toBe(new Date(clock.now() + 4 * ramp.rampStepMs).toISOString());

    const text = await runCliCaptured(['breakers', '--config', config], dynamoEnv(table.tableName));
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/ probing 0 ok, next now$/);
    expect(lines[2]).toMatch(/ probing 1 ok, next now$/);
    expect(lines[3]).toMatch(/^p +c +- +closed .* ramp 10% until \S+Z$/);
    table.close();
  });

  it('exits 1 with one line when the store cannot be read', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    const result = await runCliCaptured(['breakers', '--config', config], dynamoEnv('no-such-table'));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^switchyard breakers: cannot read dynamodb table 'no-such-table'.*ResourceNotFoundException/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says that a memory store is empty outside the serving process', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    const result = await runCliCaptured(['breakers', '--config', config], {});
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('memory store lives inside each serve process');
    expect(result.stdout).toMatch(/^p +a +- +closed/m);
  });

  it.each([
    [['breakers', '--store', 'foo'], {}],
    [['serve', '--store', 'foo'], {}],
    [['serve'], { SWITCHYARD_STORE: 'foo' }],
    [['breakers'], { SWITCHYARD_BREAKER_CACHE_MS: '-1' }],
  ])('rejects a bad store choice with one line and status 2: %j %j', async (argv, env) => {
    const result = await runCliCaptured(argv, env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--store|SWITCHYARD_/);
  });
});

describe('switchyard serve --store dynamodb', () => {
  it('creates the table on a local endpoint, names the default table in its start-up line', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    const run = async () => {
      let stdout = '';
      const code = await serveCommand(
        ['--config', config, '--port', '0', '--store', 'dynamodb'],
        {
          stdout: (t) => (stdout += t),
          stderr: () => {},
          env: { ...dynamoEnv(), SWITCHYARD_STORE: '' },
          cwd: process.cwd(),
        },
        async () => 'SIGTERM',
      );
      return { code, stdout };
    };
    const first = await run();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `breakers: dynamodb table 'switchyard-breakers' (default name; set SWITCHYARD_TABLE) at ${dynalite.endpoint} (table created), read cache off)`,
    );
    const second = await run();
    expect(second.stdout).toContain(`at ${dynalite.endpoint}, read cache off)`);
  });
});
