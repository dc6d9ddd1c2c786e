/**
 * The status page's script, plain browser JavaScript: polls `v1/status` (relative, so it works
 * under an API Gateway stage path) every `refreshMs` and redraws. Every value is set with
 * `textContent`, never parsed as HTML. A caller key, when the gateway asks for one, stays in this
 * tab's sessionStorage and travels only as `Authorization: Bearer`.
 *
 * Words: a breaker is `open` or `closed` (the API's `state`, counted in the summary), then its
 * phase when it has one (`probing`, `ramping`, `cooling`); a request that failed for its caller (exhausted, deadline, partial, stopped) is red,
 * one answered from the last resort amber, a cancelled one grey.
 */
export const STATUS_PAGE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
  const time = (iso) => iso ? new Date(iso).toLocaleTimeString() : '';
  const usd = (n) => '$' + Number(n).toFixed(n >= 1 ? 2 : 6);
  const refreshMs = Number(document.body.dataset.refreshMs) || 2000;
  const FAILED = ['exhausted', 'deadline', 'partial', 'stopped'];
  const OPENED_BY = { consecutive_429: 'opened by 429s in a row', failure_rate: 'opened by its failure rate',
    upstream_auth: 'opened at once: the provider refused our credential', model_not_found: 'opened at once: the provider does not know the model' };
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
  /** Rows, or the section's sentence when there are none: never an empty table under its header. */
  function fill(id, rows, empty) {
    $(id).replaceChildren(...rows);
    $(id + '-table').hidden = rows.length === 0;
    $(id + '-empty').hidden = rows.length > 0;
    if (empty) $(id + '-empty').textContent = empty;
  }
  /** The API's state word first (open or closed, as the summary counts them), then its phase. */
  function breakerState(b) {
    if (b.phase === 'probing') return el('span', '\\u25CF open, probing' + (b.nextProbeAt ? ': next probe ' + time(b.nextProbeAt) : ': probe due'), 'state state-open');
    if (b.state === 'open') return el('span', '\\u25CF open until ' + time(b.openUntil), 'state state-open');
    if (b.phase === 'ramp') return el('span', '\\u25D1 closed, ramping: ' + b.rampShare + ' % until ' + time(b.rampUntil), 'state state-cooling');
    if (b.coolingUntil) return el('span', '\\u25D0 closed, cooling until ' + time(b.coolingUntil), 'state state-cooling');
    return el('span', '\\u25CB closed', 'state state-closed');
  }
  /** Why a breaker is what it is; the 429 streak only while it counts (an opening resets it). */
  function breakerDetail(b) {
    if (b.state === 'open') return (OPENED_BY[b.openReason] ?? (b.openReason ? 'opened: ' + b.openReason : '')) + (b.phase === 'probing' && b.probeStreak ? '; ' + b.probeStreak + ' probes ok' : '');
    return b.consecutive429 > 0 ? '429 streak ' + b.consecutive429 : '';
  }
  function rank(b) {
    if (b.state === 'open') return 0;
    if (b.phase === 'ramp') return 1;
    if (b.coolingUntil) return 2;
    return b.windowFailures > 0 || b.consecutive429 > 0 ? 3 : 4;
  }
  const idle = (b) => rank(b) === 4 && b.windowAttempts === 0;
  function breakerRow(b) {
    const tr = row([['pipeline', b.pipeline], ['model', b.model + (b.route ? ' (' + b.route + ')' : '')], ['state', breakerState(b)],
      ['window', b.windowFailures + ' failed / ' + b.windowAttempts + ' attempts', b.windowFailures > 0 ? 'num window-fail' : 'num'], ['detail', breakerDetail(b)]]);
    tr.dataset.state = b.state; tr.dataset.model = b.model; tr.dataset.pipeline = b.pipeline;
    return tr;
  }
  /** An account route cooling after a 429 is one fact, shown once, not on every pipeline's row. */
  function coolingRoutes(breakers) {
    const routes = new Map();
    for (const b of breakers) if (b.routeCoolingUntil) routes.set(b.model + (b.route ? ' (' + b.route + ')' : ''), b);
    const box = $('cooling-routes');
    box.hidden = routes.size === 0;
    box.replaceChildren(el('strong', 'Cooling account routes: '), ...[...routes].map(([name, b], i) =>
      el('span', (i ? '; ' : '') + name + ' until ' + time(b.routeCoolingUntil) + (b.routeCooledBy ? ' (a 429 on ' + b.routeCooledBy + ')' : ''))));
  }
  function renderBreakers(all) {
    const open = all.filter((b) => b.state === 'open').length;
    $('summary').textContent = all.length + ' breakers, ' + open + ' open';
    const active = all.filter((b) => !idle(b)).sort((a, b) => rank(a) - rank(b) || b.windowFailures - a.windowFailures || b.windowAttempts - a.windowAttempts);
    const quiet = all.filter(idle);
    fill('breakers', active.map(breakerRow), all.length === 0 ? 'No breaker yet.' : 'No breaker needs attention: every one is closed and idle.');
    $('idle').replaceChildren(...quiet.map(breakerRow));
    $('idle-breakers').hidden = quiet.length === 0;
    $('idle-summary').textContent = quiet.length + ' closed, idle';
    coolingRoutes(all);
  }
  /** \`model (provider): 429 rate_limited [first]\`: the status and the class, each once. */
  function trail(r) {
    const box = el('span', undefined, 'trail');
    r.attempts.forEach((a, i) => {
      const what = [a.status, a.outcome === 'ok' && a.status !== null ? null : a.outcome].filter((x) => x !== null && x !== undefined).join(' ');
      box.append(el('code', (i ? '\\u2192 ' : '') + a.model + (a.provider ? ' (' + a.provider + ')' : '') + ': ' + what + ' [' + a.action + ']'));
    });
    if (!r.attempts.length) box.append(el('span', 'no attempt', 'muted'));
    return box;
  }
  function result(r) {
    const text = r.reason + (r.failureClass && r.failureClass !== r.reason ? ': ' + r.failureClass : '') +
      (r.continued ? ', continued by ' + r.continued.by + ' at token ' + r.continued.atToken : '');
    if (FAILED.includes(r.reason)) return el('span', '\\u2715 ' + text, 'result-fail');
    if (r.reason === 'last_resort') return el('span', text, 'result-degraded');
    return el('span', text, r.reason === 'success' ? '' : 'muted');
  }
  function render(s) {
    renderBreakers(s.breakers);
    fill('pipelines', s.pipelines.map((p) => row([
      ['pipeline', p.name], ['source', p.source], ['chain', el('code', p.chain)],
      ['tiers', p.tiers.map((t, i) => (i + 1) + ': ' + t.join(' | ')).join('; ')], ['warnings', p.warnings.join('; ')]])));
    fill('recent', s.recent.map((r) => { const tr = row([
      ['ended', time(r.endedAt)], ['pipeline', r.pipeline], ['result', result(r)],
      ['model', r.model ?? '\\u2014'], ['latency', r.latencyMs + ' ms', 'num'], ['attempts', trail(r)]]); tr.dataset.reason = r.reason; return tr; }));
    fill('limits', s.limits.map((l) => row([
      ['scope', l.scope + ' ' + l.name], ['limit', l.field], ['used', (l.kind === 'spend' ? usd(l.used) + ' of ' + usd(l.limit) : l.used + ' of ' + l.limit) + ' per ' + l.window, 'num'],
      ['resets', l.resetsAt ? new Date(l.resetsAt).toLocaleString() : 'sliding minute']])), s.limitsError || 'No admission limits are configured.');
    fill('spend', s.spend.map((p) => row([['pipeline', p.pipeline], ['requests', p.requests, 'num'], ['spent', usd(p.costUsd), 'num']])));
    $('generated').textContent = 'updated ' + time(s.generatedAt);
    document.dispatchEvent(new CustomEvent('switchyard-status', { detail: s }));
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
