/**
 * The operator console on the status page (issue 31 item 7), driven in headless Chromium against
 * the real gateway over loopback, its overrides in the local SQLite store `serve --console` uses.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createSqliteChainOverrides,
  type LocalChainOverrides,
} from '../../lambda/overrides/sqlite-chain-overrides.js';
import { bearer, type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';
import { launchChromium } from '../helpers/headless-chromium.js';
import { checkChange, confirmButton, explain, factOf, resultOf } from '../helpers/operator-console-driver.js';
import { enableStatusPage } from '../helpers/status-page-driver.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const KEYS = { app: 'sk-app-key-console-1', ops: 'sk-ops-key-console-1' };

let browser: Awaited<ReturnType<typeof launchChromium>>;
let h: GatewayHarness;
let store: LocalChainOverrides;
let dir: string;
let page: Page;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-console-'));
  store = createSqliteChainOverrides(join(dir, 'overrides.db'), () => Date.now());
});
afterEach(async () => {
  await page?.close();
  await h?.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const withConsole = (config: Record<string, unknown>) => {
  enableStatusPage(config);
  (config.statusPage as Record<string, unknown>).console = true;
};

async function start(auth = true): Promise<void> {
  h = await startGatewayHarness(
    { p: { chain: 'a,b' }, q: { chain: 'c' } },
    {
      configure: withConsole,
      operatorConsole: store,
      ...(auth ? { auth: { keys: KEYS, operatorKeys: ['ops'] } } : {}),
    },
  );
}

/** The page, with `key` given in the page's own key form (the status data needs an operator key too). */
async function openConsole(key: string | undefined = KEYS.ops): Promise<void> {
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 1400 });
  await page.goto(`${h.url}/status`);
  if (key !== undefined) {
    await page.fill('#op-key', key);
    await page.click('#op-key-form button');
  }
  await page.waitForSelector('#op-pipeline option[value="p"]', { state: 'attached' });
}

const modelOf = async () =>
  (await h.post({ model: 'p', ...HELLO }, bearer(KEYS.app))).headers.get('x-switchyard-model');

describe('the operator console in headless Chromium', () => {
  it('explains a pipeline as switchyard explain resolves it: source, chain, tiers, no history yet', async () => {
    await start();
    await openConsole();
    await explain(page, 'p');
    expect(await factOf(page, 'source')).toBe('config');
    expect(await factOf(page, 'chain')).toBe('a,b');
    expect(await factOf(page, 'tiers')).toBe('1: a; 2: b');
    expect(await factOf(page, 'override')).toBe('none: a,b from the config');
    expect(await page.isVisible('#op-history-empty')).toBe(true);
    expect(await page.isVisible('#op-history-table')).toBe(false);
  });

  it('shows the parser warning before confirming a set, writes nothing until Confirm, then records who and why', async () => {
    await start();
    await openConsole();
    await explain(page, 'p');
    await checkChange(page, { kind: 'set', chain: 'b,nosuch', reason: 'provider a is down' });
    expect(await page.textContent('#op-preview')).toContain('p: set the override to b,nosuch (tiers b)');
    expect(await page.textContent('#op-warnings')).toContain("warning: unknown model 'nosuch'");
    expect(await store.current('p')).toBeUndefined();
    expect(await modelOf()).toBe('a');
    await page.screenshot({ path: join(ARTIFACTS, 'operator-console-confirm.png'), fullPage: true });

    const done = await resultOf(page, () => page.click('#op-confirm'));
    expect(done).toContain('p routes on b,nosuch; in force now');
    expect(done).toContain("warnings: unknown model 'nosuch'");
    expect(await factOf(page, 'source')).toBe('ssm');
    expect(await factOf(page, 'chain')).toBe('b,nosuch');
    const history = await page.$$eval('#op-history tr', (rows) =>
      rows.map((r) =>
        Object.fromEntries([...r.children].map((td) => [(td as HTMLElement).dataset.label, td.textContent])),
      ),
    );
    expect(history).toEqual([
      expect.objectContaining({
        version: '1',
        who: 'ops',
        why: 'provider a is down',
        change: 'set b,nosuch',
      }),
    ]);
    expect(await modelOf()).toBe('b');
    await page.screenshot({ path: join(ARTIFACTS, 'operator-console.png'), fullPage: true });
  });

  it('refuses a chain that resolves to no model at Check, and nothing can be confirmed', async () => {
    await start();
    await openConsole();
    await explain(page, 'p');
    await checkChange(page, { kind: 'set', chain: 'nosuch', reason: 'typo test' });
    expect(await page.textContent('#op-result')).toMatch(/^refused \(400\): 'nosuch' resolves to no model/);
    expect(await page.isVisible('#op-confirm-box')).toBe(false);
    expect(await store.current('p')).toBeUndefined();
  });

  it('pins a chain for two hours: the until is shown, the pipeline returns by itself afterwards', async () => {
    await start();
    await openConsole();
    await explain(page, 'p');
    await checkChange(page, { kind: 'pin', chain: 'b', reason: 'live demo at 20:00', for: '2h' });
    expect(await page.textContent('#op-preview')).toContain('p: pin for 2h: b');
    const before = Date.now();
    const done = await resultOf(page, () => page.click('#op-confirm'));
    expect(done).toMatch(/^p: pin b until \S+; then \(the config chain\); in force now$/);
    expect(await factOf(page, 'until')).toContain('(pinned: breaker openings ignored)');
    const stored = JSON.parse((await store.current('p'))?.chain ?? '{}');
    const until = Date.parse(stored.timed.until);
    expect(until - before).toBeGreaterThanOrEqual(2 * 3_600_000 - 1_000);
    expect(until - before).toBeLessThanOrEqual(2 * 3_600_000 + 60_000);
    expect(stored.timed).toMatchObject({ chain: 'b', pin: true });
    expect(await modelOf()).toBe('b');
    expect(await page.textContent('#op-history')).toContain('live demo at 20:00');
  });

  it('clears the override: the pipeline is back on its config chain', async () => {
    await start();
    await store.put('p', 'b', 'set by switchyard chain set');
    await openConsole();
    await explain(page, 'p');
    expect(await factOf(page, 'source')).toBe('ssm');
    const done = await confirmButton(page, 'op-clear', 'incident over');
    expect(done).toBe('cleared b; p routes on its config chain a,b; in force now');
    expect(await factOf(page, 'source')).toBe('config');
    expect(await store.current('p')).toBeUndefined();
    expect(await modelOf()).toBe('a');
  });

  it('rolls back to the previous value, recorded with who and why', async () => {
    await start();
    await store.put('p', 'b', 'first');
    await store.put('p', 'c', 'second');
    await openConsole();
    await explain(page, 'p');
    const done = await confirmButton(page, 'op-rollback', 'c is slower than b');
    expect(done).toBe('p routes on b again (version 1); in force now');
    expect(await factOf(page, 'chain')).toBe('b');
    const top = await page.$$eval('#op-history tr:first-child td', (tds) => tds.map((td) => td.textContent));
    expect(top.slice(0, 1)).toEqual(['3']);
    expect(top.slice(2)).toEqual(['ops', 'c is slower than b', 'roll back to version 1 (b)']);
    expect(await modelOf()).toBe('b');
  });

  it('starts a canary and aborts it; starts another and promotes it', async () => {
    await start();
    await openConsole();
    await explain(page, 'p');
    await checkChange(page, { kind: 'canary', chain: 'c', reason: 'try c on a quarter', percent: 25 });
    expect(await page.textContent('#op-preview')).toContain('p: start a canary of 25 % on c');
    expect(await resultOf(page, () => page.click('#op-confirm'))).toContain('canary 25 % c');
    expect(await factOf(page, 'canary')).toBe('25 % on c');
    expect(await factOf(page, 'chain')).toBe('a,b');

    const aborted = await confirmButton(page, 'op-abort', 'c errors');
    expect(aborted).toBe('aborted the canary c; p routes on its config chain; in force now');
    expect(await factOf(page, 'canary')).toBeNull();
    expect(await store.current('p')).toBeUndefined();

    await checkChange(page, { kind: 'canary', chain: 'c', reason: 'second try', percent: 10 });
    await resultOf(page, () => page.click('#op-confirm'));
    const promoted = await confirmButton(page, 'op-promote', 'c holds up');
    expect(promoted).toBe('p routes every request on c; in force now');
    expect(await factOf(page, 'chain')).toBe('c');
    expect(await page.textContent('#op-history tr:first-child')).toContain('c holds up');
    expect(await modelOf()).toBe('c');
  });

  it('refuses every action to a caller key that is not an operator key, and to no key at all', async () => {
    await start();
    await store.put('p', 'b', 'before');
    await openConsole();
    await page.fill('#op-key', KEYS.app);
    await page.click('#op-key-form button');
    const refusedAs = async (status: number) => {
      await explain(page, 'p');
      expect(await page.textContent('#op-result')).toMatch(new RegExp(`^refused \\(${status}\\)`));
      for (const kind of ['set', 'pin', 'canary'] as const) {
        await checkChange(page, { kind, chain: 'c', reason: 'not allowed', for: '1h', percent: 10 });
        expect(await page.textContent('#op-result')).toMatch(new RegExp(`^refused \\(${status}\\)`));
        expect(await page.isVisible('#op-confirm-box')).toBe(false);
      }
      for (const id of ['op-clear', 'op-rollback', 'op-promote', 'op-abort'])
        expect(await confirmButton(page, id, 'not allowed')).toMatch(new RegExp(`^refused \\(${status}\\)`));
    };
    await refusedAs(403);
    expect(await page.textContent('#op-result')).toContain("the caller key 'app' is not an operator key");
    await page.evaluate(() => sessionStorage.removeItem('switchyard-key'));
    await refusedAs(401);
    expect((await store.history('p')).map((v) => v.chain)).toEqual(['b']);
  });

  it('fits a phone screen without sideways scrolling, explained pipeline and history included', async () => {
    await start();
    await store.put('p', 'b', 'set by switchyard chain set');
    await openConsole();
    await page.setViewportSize({ width: 390, height: 844 });
    await explain(page, 'p');
    await checkChange(page, { kind: 'pin', chain: 'c', reason: 'phone check', for: '1h' });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('refuses changes on a gateway without caller keys: no operator key can exist there', async () => {
    await start(false);
    await openConsole(undefined);
    await explain(page, 'p');
    expect(await page.textContent('#op-result')).toContain(
      'refused (403): the operator console needs an operator key',
    );
    expect(await confirmButton(page, 'op-clear', 'anyone?')).toMatch(/^refused \(403\)/);
  });
});
