import type { Page } from 'playwright-core';

/** How often the status page polls in the browser tests, in ms. */
export const STATUS_REFRESH_MS = 500;

/** `configure` for the gateway harness: the status page on, polling every {@link STATUS_REFRESH_MS}. */
export function enableStatusPage(config: Record<string, unknown>): void {
  config.statusPage = { enabled: true, refreshMs: STATUS_REFRESH_MS };
}

/** The breaker row of (pipeline, model), in the active table or folded among the idle ones. */
export const breakerRow = (pipeline: string, model: string) =>
  `#breakers-section tr[data-pipeline="${pipeline}"][data-model="${model}"]`;

/** The next poll the page starts from now on, and its answer drawn. */
export async function nextRefresh(page: Page): Promise<void> {
  const request = await page.waitForRequest((r) => r.url().endsWith('/v1/status'), {
    timeout: STATUS_REFRESH_MS * 20,
  });
  await request.response();
  // The answer is drawn in the task after the response resolves.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
}

/** The computed CSS colour of the first element matching `selector`. */
export const colourOf = (page: Page, selector: string) =>
  page.$eval(selector, (e) => getComputedStyle(e).color);
