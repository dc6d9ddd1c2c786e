import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';
import { launchChromium } from '../helpers/headless-chromium.js';
import {
  breakerRow,
  enableStatusPage,
  nextRefresh,
  STATUS_REFRESH_MS,
} from '../helpers/status-page-driver.js';

/** Screenshots land here (git-ignored); docs/img/status-page.png is a copy of one. */
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const MARKER = 'PROMPT-MARKER-5521';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let h: GatewayHarness;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await h?.close();
});

const withStatusPage = (config: Record<string, unknown>) => {
  enableStatusPage(config);
  // A 429 without Retry-After cools its account route for 1 ms, so the storm reaches a twice.
  config.rateLimit = { coolMs: 1 };
  config.admission = { pipelines: { p: { usdPerDay: 5, requestsPerMinute: 100 } } };
};

describe('the status page in headless Chromium', () => {
  it('shows the open breaker at its first refresh after a 429 storm, with the trail, in words', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: withStatusPage });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${h.url}/status`);
    await page.waitForSelector(`${breakerRow('p', 'a')}[data-state="closed"]`, { state: 'attached' });
    expect(await page.textContent(breakerRow('p', 'a'))).toContain('closed');

    // The storm: a answers 429 every time; two in a row open its breaker, b answers meanwhile.
    h.openai.setDefault('model-a', { status: 429 });
    for (let i = 0; i < 2; i++) {
      const res = await h.post({ model: 'p', messages: [{ role: 'user', content: MARKER }] });
      expect(res.headers.get('x-switchyard-route')).toBe('a:429,b:200');
    }
    const stormEnded = Date.now();
    await nextRefresh(page);
    const open = await page.waitForSelector(`${breakerRow('p', 'a')}[data-state="open"]`, { timeout: 2_000 });
    const shownAfterMs = Date.now() - stormEnded;
    expect(await open.textContent()).toMatch(/open until .*2 failed \/ 2 attempts.*opened by 429s in a row/);
    const recent = await page.textContent('#recent');
    expect(recent).toContain('a (fake): 429 rate_limited [first]');
    expect(recent).toContain('b (fake): 200 [fallback]');
    expect(await page.textContent('#pipelines')).toContain('config');
    expect(await page.textContent('#limits')).toContain('pipelines.p.usdPerDay');
    const html = await page.content();
    expect(html).not.toContain(MARKER);
    expect(html).not.toContain(h.env.FAKE_KEY);
    await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
    console.log(
      `status page: open breaker shown ${shownAfterMs} ms after the storm (refresh ${STATUS_REFRESH_MS} ms)`,
    );
    await page.close();
  });

  it('fits a phone screen without sideways scrolling', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: withStatusPage });
    await h.post({ model: 'p', ...HELLO });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${h.url}/status`);
    await page.waitForSelector('#recent tr');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-phone.png'), fullPage: true });
    await page.close();
  });

  it('with caller keys on, holds no data until an operator key is given, and then shows it', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        configure: withStatusPage,
        auth: { keys: { app: 'sk-app-key-1', ops: 'sk-ops-key-1' }, operatorKeys: ['ops'] },
      },
    );
    expect((await fetch(`${h.url}/v1/status`)).status).toBe(401);
    expect((await fetch(`${h.url}/v1/status`, { headers: bearer('sk-app-key-1') })).status).toBe(403);
    const page = await browser.context.newPage();
    await page.goto(`${h.url}/status`);
    await page.waitForSelector('#auth:not([hidden])');
    expect(await page.textContent('#auth-why')).toContain('needs a caller key');
    expect(await page.$$('#breakers-section tbody tr')).toHaveLength(0);
    await page.fill('#key', 'sk-app-key-1');
    await page.click('#auth button');
    await page.waitForFunction(() =>
      document.getElementById('auth-why')?.textContent?.includes('not an operator'),
    );
    await page.fill('#key', 'sk-ops-key-1');
    await page.click('#auth button');
    await page.waitForSelector(breakerRow('p', 'a'), { state: 'attached' });
    expect(await page.isHidden('#auth')).toBe(true);
    await page.close();
  });
});
