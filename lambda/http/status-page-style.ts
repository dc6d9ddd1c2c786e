/** The status page's stylesheet: readable on a phone, and without colour (every state is also a word). */
export const STATUS_PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d0d7de;
  --open: #b3261e; --ok: #1a7f37; --warn: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1;
  --line: #30363d; --open: #ff7b72; --ok: #3fb950; --warn: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 12px; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; }
h1 { font-size: 1.3em; margin: 0; }
h2 { font-size: 1.1em; margin: 20px 0 6px; }
#live { color: var(--muted); }
#live.stale { color: var(--open); font-weight: 600; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; min-width: 520px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .9em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td[data-label="ended"] { white-space: nowrap; }
code { font: .92em ui-monospace, monospace; overflow-wrap: anywhere; }
.state { font-weight: 700; white-space: nowrap; }
.state-open { color: var(--open); }
.state-closed { color: var(--ok); font-weight: 400; }
.state-cooling, .result-degraded { color: var(--warn); }
.result-fail { color: var(--open); font-weight: 700; }
.window-fail { color: var(--warn); }
.cooling { color: var(--warn); margin: 4px 0; }
details { margin-top: 8px; }
summary { cursor: pointer; color: var(--muted); }
.trail { display: flex; flex-wrap: wrap; gap: 2px 6px; }
.muted { color: var(--muted); }
form { margin: 12px 0; display: flex; flex-wrap: wrap; gap: 6px; }
input { font: inherit; padding: 6px; min-width: 16em; }
button { font: inherit; padding: 6px 12px; }
[hidden] { display: none !important; }
h3 { font-size: 1em; margin: 12px 0 4px; }
.op-row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 8px 0; }
.op-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); gap: 6px 12px; align-items: end; }
.op-grid label { display: flex; flex-direction: column; gap: 2px; }
.op-grid input, .op-grid select { min-width: 0; }
.op-grid label.op-tick { flex-direction: row; align-items: center; gap: 6px; }
select { font: inherit; padding: 4px; }
#op-facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
#op-facts dt { color: var(--muted); }
#op-facts dd { margin: 0; overflow-wrap: anywhere; }
#op-confirm-box { border: 1px solid var(--line); padding: 8px; margin: 8px 0; }
#op-warnings { color: var(--warn); margin: 4px 0; }
.op-done { color: var(--ok); }
@media (max-width: 600px) { body { padding: 8px; font-size: 14px; } table { min-width: 0; }
  thead { display: none; } tr { display: block; border-bottom: 1px solid var(--line); padding: 4px 0; }
  td { display: block; border: 0; padding: 1px 4px; } td[data-label]::before { content: attr(data-label) ": ";
  color: var(--muted); font-size: .9em; } td.num { text-align: left; } }
`;
