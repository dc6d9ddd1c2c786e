/**
 * The operator console's endpoints over loopback HTTP (docs/http-api.md#operator-console): who may
 * call, how bad input and a state in the way are refused, and that nothing relies on a cookie.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteChainOverrides } from '../../lambda/overrides/sqlite-chain-overrides.js';
import { bearer, type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';
import { enableStatusPage } from '../helpers/status-page-driver.js';

const KEYS = { app: 'sk-app-key-ops-http-1', ops: 'sk-ops-key-ops-http-1' };
let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

async function start(options: { console?: boolean; auth?: boolean } = {}) {
  const store = createSqliteChainOverrides(':memory:', () => Date.now());
  h = await startGatewayHarness(
    { p: { chain: 'a,b' } },
    {
      configure: enableStatusPage,
      ...(options.console === false ? {} : { operatorConsole: store }),
      ...(options.auth === false ? {} : { auth: { keys: KEYS, operatorKeys: ['ops'] } }),
    },
  );
  return store;
}

const call = (path: string, body?: unknown, headers: Record<string, string> = bearer(KEYS.ops)) =>
  fetch(`${h.url}/v1/operator/pipelines/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('operator endpoints', () => {
  it('answer 401 without a key, 403 to a caller key, 200 to an operator key; never set a cookie', async () => {
    await start();
    const none = await call('p', undefined, {});
    expect(none.status).toBe(401);
    const app = await call('p', undefined, bearer(KEYS.app));
    expect(app.status).toBe(403);
    expect((await app.json()).error).toMatchObject({ code: 'permission_denied' });
    const ops = await call('p');
    expect(ops.status).toBe(200);
    expect(await ops.json()).toMatchObject({ pipeline: 'p', source: 'config', chain: 'a,b', history: [] });
    for (const res of [none, app, ops]) expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuse every caller when authentication is off: a change needs an operator key', async () => {
    await start({ auth: false });
    const res = await call('p/set', { chain: 'b', reason: 'no key here' }, {});
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toContain('the operator console needs an operator key');
  });

  it('answer 404 naming statusPage.console when the console is off', async () => {
    await start({ console: false });
    const res = await call('p');
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toContain('statusPage.console');
  });

  it.each([
    ['p/set', { chain: 'b' }, 400, 'reason: '],
    ['p/set', { chain: 'b', reason: 'x' }, 400, 'reason: say why'],
    ['p/set', { chain: 'b', reason: 'two\nlines' }, 400, 'reason: must be one line'],
    ['p/set', { chain: 'nosuch', reason: 'typo' }, 400, "'nosuch' resolves to no model"],
    ['p/set', { chain: 'b', reason: 'pin it', pin: true }, 400, 'pin needs an end'],
    ['p/set', { chain: 'b', reason: 'hold it', for: '2 hours' }, 400, 'for must be a duration such as 2h'],
    ['p/canary', { chain: 'b', reason: 'try', percent: 100 }, 400, 'percent: '],
    ['p/promote', { reason: 'no canary' }, 409, 'no canary is running on p'],
    ['p/clear', { reason: 'nothing' }, 409, 'p has no override to clear'],
    ['p/rollback', { reason: 'nothing' }, 409, 'cannot roll back p: no SSM override to roll back'],
    ['nope', undefined, 404, "the config has no pipeline 'nope'"],
  ])('refuse %s %j with %i naming the problem', async (path, body, status, message) => {
    await start();
    const res = await call(path, body);
    expect(res.status).toBe(status);
    expect((await res.json()).error.message).toContain(message);
  });

  it('check a chain with the parser and write nothing', async () => {
    const store = await start();
    const res = await call('p/check', { chain: '(a|b), nosuch' });
    expect(await res.json()).toEqual({
      chain: '(a|b), nosuch',
      tiers: [['a', 'b']],
      warnings: ["unknown model 'nosuch' at 7"],
    });
    expect(await store.current('p')).toBeUndefined();
  });

  it('say that a plain set ends a timed override in force', async () => {
    await start();
    expect((await call('p/set', { chain: 'b', reason: 'hold b', for: '1h' })).status).toBe(200);
    const res = await call('p/set', { chain: 'a', reason: 'back to a for good' });
    const body = await res.json();
    expect(body.done).toMatch(/^p routes on a; this ends the timed override of b that ran until \S+Z$/);
    expect(body.explanation).toMatchObject({ source: 'ssm', chain: 'a' });
    expect(body.explanation.until).toBeUndefined();
  });

  it('refuse a rollback to a version that resolves to no model in this catalog, and write nothing', async () => {
    const store = await start();
    await store.put('p', 'retired', 'from an older catalog');
    await store.put('p', 'b', 'now');
    const res = await call('p/rollback', { reason: 'go back' });
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toBe(
      "cannot roll back p: version 1 ('retired') resolves to no model in this catalog",
    );
    expect((await store.current('p'))?.version).toBe(2);
  });

  it('refuse a timed override over a running canary with 409', async () => {
    await start();
    expect((await call('p/canary', { chain: 'b', reason: 'try b', percent: 10 })).status).toBe(200);
    const res = await call('p/set', { chain: 'b', reason: 'hold', for: '1h' });
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toContain('promote or abort it before a timed override');
  });
});
