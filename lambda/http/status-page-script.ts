/**
 * The status page's script, plain browser JavaScript: polls `v1/status` (relative, so it works
 * under an API Gateway stage path) every `refreshMs` and redraws. Every value is set with
 * `textContent`, never parsed as HTML. A caller key, when the gateway asks for one, stays in this
 * tab's sessionStorage and travels only as `Authorization: Bearer`.
 */
export const STATUS_PAGE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
  const time = (iso) => iso ? new Date(iso).toLocaleTimeString() : '';
  const usd = (n) => '$' + Number(n).toFixed(n >= 1 ? 2 : 6);
  const refreshMs = Number(document.body.dataset.refreshMs) || 2000;
  let lastOk = 0;

  function row(cells) {
    const tr = document.createElement('tr');
    for (const [label, value, cls] of cells) {
      const td = value instanceof Node ? el('td') : el('td', value ?? '');
      if (value instanceof Node) td.append(value);
      td.dataset.label = label;
      if (cls) td.className = cls;
      tr.append(td);
    }
    return tr;
  }
  function fill(id, rows, empty) {
    const body = $(id);
    body.replaceChildren(...rows);
    $(id + '-empty').hidden = rows.length > 0;
    if (empty) $(id + '-empty').textContent = empty;
  }
  function breakerState(b) {
    if (b.state === 'open') return el('span', '\\u25CF OPEN until ' + time(b.openUntil), 'state state-open');
    if (b.coolingUntil || b.routeCoolingUntil) return el('span', '\\u25D0 cooling until ' + time(b.coolingUntil || b.routeCoolingUntil), 'state state-cooling');
    return el('span', '\\u25CB closed', 'state state-closed');
  }
  function trail(r) {
    const box = el('span', undefined, 'trail');
    r.attempts.forEach((a, i) => {
      const label = (i ? '\\u2192 ' : '') + a.model + (a.provider ? ' (' + a.provider + ')' : '') + ': ' + (a.status ?? a.outcome) + (a.outcome === 'ok' ? '' : ' ' + a.outcome) + ' [' + a.action + ']';
      box.append(el('code', label));
    });
    if (!r.attempts.length) box.append(el('span', 'no attempt', 'muted'));
    return box;
  }
  function render(s) {
    const open = s.breakers.filter((b) => b.state === 'open').length;
    $('summary').textContent = s.breakers.length + ' breakers, ' + open + ' open';
    const breakers = [...s.breakers].sort((a, b) => (a.state === 'open' ? 0 : 1) - (b.state === 'open' ? 0 : 1));
    fill('breakers', breakers.map((b) => { const tr = row([
      ['pipeline', b.pipeline], ['model', b.model + (b.route ? ' (' + b.route + ')' : '')], ['state', breakerState(b)],
      ['window', b.windowFailures + ' failed / ' + b.windowAttempts + ' attempts', 'num'], ['429 streak', b.consecutive429, 'num'],
      ['reason', b.openReason ?? '']]); tr.dataset.state = b.state; tr.dataset.model = b.model; tr.dataset.pipeline = b.pipeline; return tr; }));
    fill('pipelines', s.pipelines.map((p) => row([
      ['pipeline', p.name], ['source', p.source], ['chain', el('code', p.chain)],
      ['tiers', p.tiers.map((t, i) => (i + 1) + ': ' + t.join(' | ')).join('; ')], ['warnings', p.warnings.join('; ')]])));
    fill('recent', s.recent.map((r) => row([
      ['ended', time(r.endedAt)], ['pipeline', r.pipeline],
      ['result', el('span', r.reason + (r.failureClass ? ' (' + r.failureClass + ')' : '') + (r.continued ? ', continued by ' + r.continued.by + ' at token ' + r.continued.atToken : ''), r.reason === 'success' ? '' : 'reason-fail')],
      ['model', r.model ?? '\\u2014'], ['latency', r.latencyMs + ' ms', 'num'], ['attempts', trail(r)]])));
    fill('limits', s.limits.map((l) => row([
      ['scope', l.scope + ' ' + l.name], ['limit', l.field], ['used', (l.kind === 'spend' ? usd(l.used) + ' of ' + usd(l.limit) : l.used + ' of ' + l.limit) + ' per ' + l.window, 'num'],
      ['resets', l.resetsAt ? new Date(l.resetsAt).toLocaleString() : 'sliding minute']])), s.limitsError || 'No admission limits are configured.');
    fill('spend', s.spend.map((p) => row([['pipeline', p.pipeline], ['requests', p.requests, 'num'], ['spent', usd(p.costUsd), 'num']])));
    $('generated').textContent = 'updated ' + time(s.generatedAt);
  }
  function key() { return sessionStorage.getItem('switchyard-key'); }
  async function poll() {
    try {
      const headers = key() ? { authorization: 'Bearer ' + key() } : {};
      const res = await fetch('v1/status', { headers, cache: 'no-store' });
      if (res.status === 401 || res.status === 403) {
        $('auth').hidden = false;
        $('auth-why').textContent = res.status === 401 ? 'This gateway needs a caller key.' : 'This key is not an operator key.';
      } else if (res.ok) {
        $('auth').hidden = true;
        render(await res.json());
        lastOk = Date.now();
      }
    } catch { /* the gateway is away: the stale marker says so */ }
    const stale = Date.now() - lastOk > refreshMs * 3;
    $('live').textContent = lastOk === 0 ? 'waiting for the gateway' : stale ? 'STALE: no answer since ' + new Date(lastOk).toLocaleTimeString() : 'live, every ' + refreshMs / 1000 + ' s';
    $('live').className = stale ? 'stale' : '';
    setTimeout(poll, refreshMs);
  }
  $('auth').addEventListener('submit', (e) => { e.preventDefault(); sessionStorage.setItem('switchyard-key', $('key').value.trim()); $('key').value = ''; });
  poll();
})();
`;
