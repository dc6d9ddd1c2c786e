/**
 * The status page during an incident (issue 31 item 6), in headless Chromium: what needs attention
 * first, idle breakers folded behind their count, one word per state, failures red, each label
 * once, and no empty table anywhere.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, HELLO, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';
import { launchChromium } from '../helpers/headless-chromium.js';
import { breakerRow, colourOf, enableStatusPage, nextRefresh } from '../helpers/status-page-driver.js';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let h: GatewayHarness;
let page: Page;
/** Screenshots land here (git-ignored); docs/img/status-page-incident.png is a copy of one. */
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await page?.close();
  await h?.close();
});

/** `p` on a then b, ten quiet pipelines on c. A 429 cools its account route for 1 ms only. */
const IDLE = Array.from({ length: 10 }, (_, i) => `quiet-${i}`);
const PIPELINES = { p: { chain: 'a,b' }, ...Object.fromEntries(IDLE.map((n) => [n, { chain: 'c' }])) };
const quickCooling = (config: Record<string, unknown>) => {
  enableStatusPage(config);
  config.rateLimit = { coolMs: 1 };
};

async function openPage(): Promise<void> {
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(`${h.url}/status`);
}

/** Two 429s of a on p: its breaker opens, b answers both. */
async function storm(): Promise<void> {
  h.openai.setDefault('model-a', { status: 429 });
  for (let i = 0; i < 2; i++) await h.post({ model: 'p', ...HELLO });
}

const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

describe('the status page during an incident', () => {
  it('lists the active breakers first (open, then failing, then busy) and folds the idle ones behind their count', async () => {
    h = await startGatewayHarness(PIPELINES, { configure: quickCooling });
    await storm();
    h.openai.setDefault('model-c', { status: 500 });
    expect((await h.post({ model: 'quiet-9', ...HELLO })).status).toBe(503);
    await openPage();
    await page.waitForSelector('#idle-summary');
    const active = await page.$$eval('#breakers tr', (rows) =>
      rows.map((r) => `${(r as HTMLElement).dataset.pipeline}/${(r as HTMLElement).dataset.model}`),
    );
    expect(active).toEqual(['p/a', 'quiet-9/c', 'p/b']);
    expect(await page.textContent('#idle-summary')).toBe('9 closed, idle');
    expect(await page.$$('#idle tr')).toHaveLength(9);
    // Folded: the idle rows are there but not shown until the operator opens them.
    expect(await page.isVisible(breakerRow('quiet-0', 'c'))).toBe(false);
    await page.click('#idle-summary');
    expect(await page.isVisible(breakerRow('quiet-0', 'c'))).toBe(true);
    // A refresh keeps them open (the operator asked to see them).
    await nextRefresh(page);
    expect(await page.isVisible(breakerRow('quiet-0', 'c'))).toBe(true);
    await page.click('#idle-summary');
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-incident.png'), fullPage: true });
  });

  it('with every breaker idle, says so instead of an empty table', async () => {
    h = await startGatewayHarness(PIPELINES, { configure: quickCooling });
    await openPage();
    await page.waitForSelector('#breakers-empty:not([hidden])');
    expect(await page.textContent('#breakers-empty')).toBe(
      'No breaker needs attention: every one is closed and idle.',
    );
    expect(await page.isVisible('#breakers-table')).toBe(false);
    expect(await page.textContent('#idle-summary')).toBe('12 closed, idle');
  });

  it('says why an open breaker opened and shows no 429 streak beside it; a closed one shows its streak', async () => {
    h = await startGatewayHarness({ ...PIPELINES, r: { chain: 'c,b' } }, { configure: quickCooling });
    await storm();
    h.openai.script('model-c', [{ status: 429 }]);
    await h.post({ model: 'r', ...HELLO });
    await openPage();
    await page.waitForSelector(`${breakerRow('p', 'a')}[data-state="open"]`);
    const open = await page.textContent(breakerRow('p', 'a'));
    expect(open).toMatch(/^p\s*a\s*● open until .+2 failed \/ 2 attempts\s*opened by 429s in a row$/);
    expect(open).not.toContain('streak');
    expect(await page.textContent(breakerRow('r', 'c'))).toContain('429 streak 1');
    // The API's state word first on every row: open or closed; no capitals, no synonyms.
    const words = await page.$$eval('#breakers-section .state', (s) =>
      [...new Set(s.map((e) => /^\S+ (\w+)/.exec(e.textContent ?? '')?.[1]))].sort(),
    );
    expect(words).toEqual(['closed', 'open']);
  });

  it('names an account route that cools after a 429 once, above the table, not on every pipeline', async () => {
    h = await startGatewayHarness(PIPELINES, {
      configure: (config) => {
        enableStatusPage(config);
        config.rateLimit = { coolMs: 60_000 };
      },
    });
    h.openai.script('model-c', [{ status: 429 }]);
    await h.post({ model: 'quiet-0', ...HELLO });
    await openPage();
    await page.waitForSelector('#cooling-routes:not([hidden])');
    expect(await page.textContent('#cooling-routes')).toMatch(
      /^Cooling account routes: c until \S+ (AM|PM)? ?\(a 429 on quiet-0\)$/,
    );
    // The nine pipelines that only share the route stay folded as idle.
    expect(await page.textContent('#idle-summary')).toBe('11 closed, idle');
  });

  it('shows a request that failed for its caller in red, with its reason and class once each', async () => {
    h = await startGatewayHarness({ e: { chain: 'b' }, s: { chain: 'a' } }, { configure: quickCooling });
    h.openai.setDefault('model-b', { status: 500 });
    expect((await h.post({ model: 'e', ...HELLO })).status).toBe(503);
    h.openai.script('model-a', [{ text: '{"response":"yes"}' }]);
    const partial = await h.post({
      model: 's',
      stream: true,
      ...HELLO,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: SCHEMA } },
    });
    await partial.text();
    await waitFor(() => h.requests().length === 2);
    await h.post({ model: 's', ...HELLO });
    await openPage();
    await page.waitForSelector('#recent tr[data-reason="partial"]');
    const exhausted = '#recent tr[data-reason="exhausted"] td[data-label="result"] span';
    expect(await page.textContent(exhausted)).toBe('✕ exhausted: unavailable');
    const openColour = await page.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue('--open').trim(),
    );
    expect(openColour).toBe('#b3261e');
    expect(await colourOf(page, exhausted)).toBe('rgb(179, 38, 30)');
    const partialRow = await page.textContent('#recent tr[data-reason="partial"]');
    expect(partialRow).toContain('✕ partial: schema_invalid');
    expect(partialRow?.match(/schema_invalid/g)).toHaveLength(2); // once in the result, once in the trail
    expect(partialRow).not.toMatch(/schema_invalid\s+schema_invalid/);
    const success = '#recent tr[data-reason="success"] td[data-label="result"] span';
    expect(await colourOf(page, success)).not.toBe('rgb(179, 38, 30)');
    expect(await page.textContent('#recent tr[data-reason="success"]')).toContain('a (fake): 200 [first]');
  });

  it('says a section is empty in words, with no table header under it', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } }, { configure: enableStatusPage });
    await openPage();
    await page.waitForSelector('#limits-empty:not([hidden])');
    for (const [id, words] of [
      ['limits', 'No admission limits are configured.'],
      ['recent', 'No request yet.'],
      ['spend', 'Nothing spent yet.'],
    ]) {
      expect(await page.textContent(`#${id}-empty`)).toBe(words);
      expect(await page.isVisible(`#${id}-empty`)).toBe(true);
      expect(await page.isVisible(`#${id}-table`)).toBe(false);
    }
    await h.post({ model: 'p', ...HELLO });
    await page.waitForSelector('#recent-table:not([hidden])');
    expect(await page.isVisible('#recent-empty')).toBe(false);
  });
});
