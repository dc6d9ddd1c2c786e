/**
 * The operator console's part of the status page (docs/operations.md#the-operator-console): a
 * pipeline explained with its override history, and the forms that change its override. Every
 * change is previewed (the parser's tiers and warnings, or what will be cleared) and written only
 * on Confirm. The script is {@link STATUS_CONSOLE_SCRIPT}.
 */
export const STATUS_CONSOLE_HTML = `<section id="console-section" aria-labelledby="console-title">
<h2 id="console-title">Operator console</h2>
<p class="muted">Changes need an operator key. It stays in this tab and travels only as <code>Authorization: Bearer</code>, never in a cookie.</p>
<form id="op-key-form" class="op-row"><label>Operator key <input id="op-key" type="password" autocomplete="off"></label><button type="submit">Use key</button></form>
<div class="op-row"><label>Pipeline <select id="op-pipeline"></select></label><button id="op-explain" type="button">Explain</button></div>
<div id="op-explanation" hidden>
<dl id="op-facts"></dl>
<h3>Override history</h3>
<p id="op-history-empty" class="muted" hidden>No override history: the pipeline has no override (a clear deletes the history with it).</p>
<div id="op-history-table" class="scroll" hidden><table><thead><tr><th scope="col">version</th><th scope="col">when</th><th scope="col">who</th><th scope="col">why</th><th scope="col">change</th></tr></thead><tbody id="op-history"></tbody></table></div>
</div>
<form id="op-change" class="op-grid">
<label>Change <select id="op-kind"><option value="set">override</option><option value="pin">pin (ignores breakers)</option><option value="timed">timed override</option><option value="canary">canary</option></select></label>
<label>Chain <input id="op-chain" autocomplete="off" placeholder="(a|b),c"></label>
<label>For (pin, timed) <input id="op-for" autocomplete="off" placeholder="2h"></label>
<label>Share % (canary) <input id="op-percent" type="number" min="1" max="99" value="10"></label>
<label class="op-tick"><input id="op-auto-abort" type="checkbox"> auto-abort (canary)</label>
<label>Reason <input id="op-reason" autocomplete="off" placeholder="why, kept in the history"></label>
<button id="op-check" type="submit">Check</button>
</form>
<div class="op-row"><button id="op-clear" type="button">Clear override</button><button id="op-rollback" type="button">Roll back</button>
<button id="op-promote" type="button">Promote canary</button><button id="op-abort" type="button">Abort canary</button></div>
<div id="op-confirm-box" hidden><p id="op-preview"></p><ul id="op-warnings"></ul>
<button id="op-confirm" type="button">Confirm</button> <button id="op-cancel" type="button">Cancel</button></div>
<p id="op-result" role="status" aria-live="polite"></p>
</section>`;

/**
 * The console's script: plain browser JavaScript, values set with `textContent` only. It calls
 * `v1/operator/pipelines/{pipeline}` (relative, so it works under a stage path) with the key from
 * this tab's sessionStorage in `Authorization`, and JSON bodies; no cookie is ever set or read.
 */
export const STATUS_CONSOLE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); return e; };
  const key = () => sessionStorage.getItem('switchyard-key');
  let pending = null;
  const pipeline = () => $('op-pipeline').value;

  async function call(method, path, body) {
    const headers = { 'content-type': 'application/json' };
    if (key()) headers.authorization = 'Bearer ' + key();
    try {
      const res = await fetch('v1/operator/pipelines/' + encodeURIComponent(pipeline()) + path,
        { method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
      return { ok: res.ok, status: res.status, json: await res.json().catch(() => ({})) };
    } catch { return { ok: false, status: 0, json: { error: { message: 'the gateway did not answer' } } }; }
  }
  function say(text, failed) { $('op-result').textContent = text; $('op-result').className = failed ? 'result-fail' : 'op-done'; }
  const refused = (r) => say('refused (' + r.status + '): ' + ((r.json.error && r.json.error.message) || 'no answer'), true);
  function fact(name, value) {
    if (value === undefined || value === null || value === '') return [];
    const dt = el('dt', name); const dd = el('dd', value); dd.dataset.fact = name; return [dt, dd];
  }
  function explained(x) {
    const tiers = (t) => t.map((m, i) => (i + 1) + ': ' + m.join(' | ')).join('; ');
    $('op-facts').replaceChildren(
      ...fact('source', x.source ?? 'none resolves'), ...fact('chain', x.chain), ...fact('tiers', tiers(x.tiers)),
      ...fact('warnings', x.warnings.join('; ')),
      ...fact('until', x.until ? new Date(x.until).toLocaleString() + (x.pinned ? ' (pinned: breaker openings ignored)' : '') : null),
      ...fact('canary', x.canary ? x.canary.percent + ' % on ' + x.canary.chain + (x.canary.autoAbort ? ' (auto-abort)' : '') : null),
      ...fact('override', x.override ? x.override.shown + ' (version ' + x.override.version + ')' : 'none: ' + (x.configChain ?? '') + ' from the config'),
      ...fact('store', x.store));
    $('op-history').replaceChildren(...x.history.map((h) => {
      const tr = document.createElement('tr');
      for (const [label, value] of [['version', h.version], ['when', h.modified ? new Date(h.modified).toLocaleString() : ''], ['who', h.who ?? ''], ['why', h.why ?? ''], ['change', h.why !== null && h.what ? h.what : h.value + (h.what ? ' (' + h.what + ')' : '')]]) {
        const td = el('td', value); td.dataset.label = label; tr.append(td);
      }
      return tr;
    }));
    $('op-history-table').hidden = x.history.length === 0;
    $('op-history-empty').hidden = x.history.length > 0;
    $('op-explanation').hidden = false;
  }
  async function explain() {
    const r = await call('GET', '');
    if (r.ok) explained(r.json); else refused(r);
    return r.ok;
  }
  function preview(text, warnings, request) {
    pending = request;
    $('op-preview').textContent = text;
    $('op-warnings').replaceChildren(...warnings.map((w) => el('li', 'warning: ' + w)));
    $('op-confirm-box').hidden = false;
  }
  function reason() { return $('op-reason').value; }

  document.addEventListener('switchyard-status', (e) => {
    const names = e.detail.pipelines.map((p) => p.name);
    const shown = [...$('op-pipeline').options].map((o) => o.value);
    if (names.join() === shown.join()) return;
    const kept = pipeline();
    $('op-pipeline').replaceChildren(...names.map((n) => { const o = el('option', n); o.value = n; return o; }));
    if (names.includes(kept)) $('op-pipeline').value = kept;
  });
  $('op-key-form').addEventListener('submit', (e) => { e.preventDefault(); sessionStorage.setItem('switchyard-key', $('op-key').value.trim()); $('op-key').value = ''; say('key set for this tab'); });
  $('op-explain').addEventListener('click', () => { say(''); explain(); });
  $('op-change').addEventListener('submit', async (e) => {
    e.preventDefault();
    const kind = $('op-kind').value;
    const chain = $('op-chain').value;
    const body = { chain, reason: reason() };
    if (kind === 'pin' || kind === 'timed') body.for = $('op-for').value;
    if (kind === 'pin') body.pin = true;
    if (kind === 'canary') { body.percent = Number($('op-percent').value); body.autoAbort = $('op-auto-abort').checked; }
    const r = await call('POST', '/check', { chain });
    if (!r.ok) { $('op-confirm-box').hidden = true; pending = null; refused(r); return; }
    const what = kind === 'canary' ? 'start a canary of ' + body.percent + ' % on' : kind === 'pin' ? 'pin for ' + body.for + ':' : kind === 'timed' ? 'hold for ' + body.for + ':' : 'set the override to';
    preview(pipeline() + ': ' + what + ' ' + r.json.chain + ' (tiers ' + r.json.tiers.map((t) => t.join(' | ')).join(', ') + ')' + (r.json.warnings.length ? '; the parser warns:' : ''),
      r.json.warnings, { path: kind === 'canary' ? '/canary' : '/set', body });
  });
  for (const [id, path, words] of [['op-clear', '/clear', 'clear the override (its history goes with it)'], ['op-rollback', '/rollback', 'roll back to the previous value'],
    ['op-promote', '/promote', 'promote the canary to every request'], ['op-abort', '/abort', 'abort the canary']]) {
    $(id).addEventListener('click', () => preview(pipeline() + ': ' + words, [], { path, body: { reason: reason() } }));
  }
  $('op-cancel').addEventListener('click', () => { pending = null; $('op-confirm-box').hidden = true; });
  $('op-confirm').addEventListener('click', async () => {
    if (!pending) return;
    const r = await call('POST', pending.path, pending.body);
    pending = null;
    $('op-confirm-box').hidden = true;
    if (!r.ok) { refused(r); return; }
    say(r.json.done + '; ' + r.json.applies + (r.json.warnings.length ? '; warnings: ' + r.json.warnings.join('; ') : ''));
    explained(r.json.explanation);
  });
})();
`;
