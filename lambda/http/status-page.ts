import { createHash } from 'node:crypto';
import { STATUS_PAGE_SCRIPT } from './status-page-script.js';
import { STATUS_PAGE_STYLE } from './status-page-style.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's Content-Security-Policy: only its own inline style and script (by hash), and fetches
 * to its own origin. It loads nothing else, so it works with no network beyond the gateway.
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${hash(STATUS_PAGE_SCRIPT)}`,
  `style-src ${hash(STATUS_PAGE_STYLE)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function table(id: string, title: string, columns: string[], empty: string): string {
  const head = columns.map((c) => `<th scope="col">${c}</th>`).join('');
  return `<section aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>
<p id="${id}-empty" class="muted">${empty}</p>
<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody id="${id}"></tbody></table></div></section>`;
}

/**
 * `GET /status`: one self-contained HTML page, no data in it (the data comes from `v1/status`,
 * behind the caller keys when authentication is on), no external asset.
 */
export function statusPageHtml(refreshMs: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard status</title>
<style>${STATUS_PAGE_STYLE}</style></head>
<body data-refresh-ms="${refreshMs}">
<header><h1>Switchyard status</h1><span id="summary"></span><span id="generated" class="muted"></span>
<span id="live" role="status" aria-live="polite">waiting for the gateway</span></header>
<form id="auth" hidden><span id="auth-why"></span>
<label>Caller key <input id="key" type="password" autocomplete="off"></label><button type="submit">Use key</button></form>
${table('breakers', 'Breakers', ['pipeline', 'model (route)', 'state', 'window', '429 streak', 'reason'], 'No breaker yet.')}
${table('recent', 'Recent requests', ['ended', 'pipeline', 'result', 'model', 'latency', 'attempts'], 'No request yet.')}
${table('pipelines', 'Pipelines', ['pipeline', 'source', 'chain', 'tiers', 'warnings'], 'No pipeline is configured.')}
${table('limits', 'Limits', ['scope', 'limit', 'used', 'resets'], 'No admission limits are configured.')}
${table('spend', 'Spend in this process', ['pipeline', 'requests', 'spent'], 'Nothing spent yet.')}
<script>${STATUS_PAGE_SCRIPT}</script>
</body></html>
`;
}
