import { describe, expect, it } from 'vitest';
import {
  checkRows,
  type LedgerCheck,
  type RunTotals,
  type UpstreamTotals,
} from '../../../lambda/dev/demo/ledger-check.js';
import { checkTable } from '../../../lambda/dev/demo/report-tables.js';

const totals: RunTotals = { requests: 100, successes: 100, attempts: 130, upstream429: 30 };
const upstreams: UpstreamTotals = { attempts: 130, successes: 100, upstream429: 30 };

function check(over: Partial<UpstreamTotals> = {}, comparable = true): LedgerCheck {
  const theirs = { ...upstreams, ...over };
  const rows = checkRows(totals, totals, theirs);
  return {
    callers: totals,
    ledger: totals,
    upstreams: theirs,
    providers429: theirs.upstream429,
    rows,
    matches: rows.every((r) => r.agrees),
    comparable,
  };
}

/** The cells of one check row, by its data-check key. */
function cells(html: string, key: string): string[] {
  const row = html.match(new RegExp(`<tr data-check="${key}"[^>]*>(.*?)</tr>`))?.[1] ?? '';
  return [...row.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1] ?? '');
}

describe('demo ledger check table', () => {
  it.each([
    ['successes', '100'],
    ['attempts', '130'],
    ['upstream429', '30'],
  ])('shows all three numbers in the %s row', (key, n) => {
    expect(cells(checkTable(check()), key).slice(1)).toEqual([n, n, n]);
  });

  it('says the upstreams do not see requests instead of leaving the cell blank', () => {
    const [, callers, ledger, theirs] = cells(checkTable(check()), 'requests');
    expect([callers, ledger]).toEqual(['100', '100']);
    expect(theirs).toContain('not seen');
  });

  it('says all three sides agree, in green, only when every row agrees', () => {
    const html = checkTable(check());
    expect(html).toContain(
      '<p class="verdict ok">All three sides agree on successful requests, upstream attempts, upstream 429s;',
    );
  });

  it('turns the verdict red and names the row when the upstreams counted one attempt more', () => {
    const c = check({ attempts: 131 });
    expect(c.matches).toBe(false);
    const html = checkTable(c);
    expect(html).toContain('<tr data-check="attempts" class="mismatch">');
    expect(html).toMatch(
      /<p class="verdict bad">The sides disagree on upstream attempts \(callers 130, ledger 130, upstreams 131\)\.<\/p>/,
    );
    expect(html).not.toContain('All three sides agree');
  });

  it('names every disagreeing row and only those', () => {
    const html = checkTable(check({ successes: 99, upstream429: 31 }));
    expect(html).toContain(
      'disagree on successful requests (callers 100, ledger 100, upstreams 99); upstream 429s',
    );
    expect(html).not.toContain('disagree on upstream attempts');
    expect(html).toContain('<tr data-check="attempts">');
  });

  it('does not claim agreement on a cut run', () => {
    expect(checkTable(check({}, false))).toContain('<p class="verdict bad">Not comparable');
  });
});
