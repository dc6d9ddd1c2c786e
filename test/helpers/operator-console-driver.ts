import type { Page } from 'playwright-core';

/** The console's answer line after the next action: empties it, runs `act`, waits for the new text. */
export async function resultOf(page: Page, act: () => Promise<void>): Promise<string> {
  await page.$eval('#op-result', (e) => {
    e.textContent = '';
  });
  await act();
  await page.waitForFunction(() => (document.getElementById('op-result')?.textContent ?? '') !== '');
  return (await page.textContent('#op-result')) ?? '';
}

/** The text of one fact of the explained pipeline (`source`, `chain`, `until`, `canary`, …), or null. */
export const factOf = (page: Page, name: string) =>
  page.$eval(`#op-facts dd[data-fact="${name}"]`, (e) => e.textContent).catch(() => null);

/** Fills the change form and presses Check; resolves once the preview (or a refusal) is shown. */
export async function checkChange(
  page: Page,
  change: {
    kind: 'set' | 'pin' | 'timed' | 'canary';
    chain: string;
    reason: string;
    for?: string;
    percent?: number;
  },
): Promise<void> {
  await page.selectOption('#op-kind', change.kind);
  await page.fill('#op-chain', change.chain);
  await page.fill('#op-reason', change.reason);
  if (change.for !== undefined) await page.fill('#op-for', change.for);
  if (change.percent !== undefined) await page.fill('#op-percent', String(change.percent));
  await page.$eval('#op-result', (e) => {
    e.textContent = '';
  });
  await page.click('#op-check');
  await page.waitForFunction(
    () =>
      !document.getElementById('op-confirm-box')?.hidden ||
      (document.getElementById('op-result')?.textContent ?? '') !== '',
  );
}

/** Presses one of the console's buttons (clear, rollback, promote, abort) with a reason, then Confirm. */
export async function confirmButton(page: Page, id: string, reason: string): Promise<string> {
  await page.fill('#op-reason', reason);
  await page.click(`#${id}`);
  await page.waitForSelector('#op-confirm-box:not([hidden])');
  return resultOf(page, () => page.click('#op-confirm'));
}

/** Explains the selected pipeline and waits for its facts. */
export async function explain(page: Page, pipeline: string): Promise<void> {
  await page.waitForSelector(`#op-pipeline option[value="${pipeline}"]`, { state: 'attached' });
  await page.selectOption('#op-pipeline', pipeline);
  await page.$eval('#op-explanation', (e) => {
    (e as HTMLElement).hidden = true;
  });
  await page.click('#op-explain');
  await page.waitForFunction(
    () =>
      !document.getElementById('op-explanation')?.hidden ||
      (document.getElementById('op-result')?.textContent ?? '') !== '',
  );
}
