import { createHash } from 'node:crypto';
import { STATUS_CONSOLE_HTML, STATUS_CONSOLE_SCRIPT } from './status-console.js';
import { STATUS_PAGE_SCRIPT } from './status-page-script.js';
import { STATUS_PAGE_STYLE } from './status-page-style.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's Content-Security-Policy: only its own inline style and scripts (by hash), and fetches
 * to its own origin. It loads nothing else, so it works with no network beyond the gateway.
 */
export function statusPageCsp(withConsole: boolean): string {
  const scripts = [hash(STATUS_PAGE_SCRIPT), ...(withConsole ? [hash(STATUS_CONSOLE_SCRIPT)] : [])];
  return [
    "default-src 'none'",
    `script-src ${scripts.join(' ')}`,
    `style-src ${hash(STATUS_PAGE_STYLE)}`,
    "connect-src 'self'",
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * A table with its empty-state sentence: the script shows the sentence or the table, never an
 * empty table under its header.
 */
function table(id: string, columns: string[], empty: string): string {
  const head = columns.map((c) => `<th scope="col">${c}</th>`).join('');
  return `<p id="${id}-empty" class="muted" hidden>${empty}</p>
<div id="${id}-table" class="scroll" hidden><table><thead><tr>${head}</tr></thead><tbody id="${id}"></tbody></table></div>`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}-section" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>\n${body}</section>`;
}

const BREAKER_COLUMNS = ['pipeline', 'model (route)', 'state', 'window', 'detail'];

/**
 * `GET /status`: one self-contained HTML page, no data in it (the data comes from `v1/status`,
 * behind the caller keys when authentication is on), no external asset. Idle breakers (closed,
 * nothing in their window) are folded behind their count, so what needs attention comes first.
 * `withConsole`: the operator console follows (docs/operations.md#the-operator-console).
 */
export function statusPageHtml(refreshMs: number, withConsole = false): string {
  const breakers = `<p id="cooling-routes" class="cooling" hidden></p>
${table('breakers', BREAKER_COLUMNS, 'No breaker needs attention.')}
<details id="idle-breakers" hidden><summary id="idle-summary"></summary>
<div class="scroll"><table><thead><tr>${BREAKER_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead><tbody id="idle"></tbody></table></div></details>`;
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
${section('breakers', 'Breakers', breakers)}
${section('recent', 'Recent requests', table('recent', ['ended', 'pipeline', 'result', 'model', 'latency', 'attempts'], 'No request yet.'))}
${section('pipelines', 'Pipelines', table('pipelines', ['pipeline', 'source', 'chain', 'tiers', 'warnings'], 'No pipeline is configured.'))}
${section('limits', 'Limits', table('limits', ['scope', 'limit', 'used', 'resets'], 'No admission limits are configured.'))}
${section('spend', 'Spend in this process', table('spend', ['pipeline', 'requests', 'spent'], 'Nothing spent yet.'))}
${withConsole ? STATUS_CONSOLE_HTML : ''}
<script>${STATUS_PAGE_SCRIPT}</script>${withConsole ? `\n<script>${STATUS_CONSOLE_SCRIPT}</script>` : ''}
</body></html>
`;
}
