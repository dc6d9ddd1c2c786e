/**
 * Inline SVG charts for the demo report: stacked bars over time and a Gantt-like strip, all on
 * the same time axis with the phases shaded behind them. Plain strings, no library, no script:
 * the report must open from disk with no network.
 */

/** Horizontal layout shared by every chart, so their time axes line up on the page. */
const VIEW_WIDTH = 1000;
const LEFT = 150;
const RIGHT = 16;
const PLOT_WIDTH = VIEW_WIDTH - LEFT - RIGHT;

/** A band of the background with its name on top. */
export interface PhaseBand {
  name: string;
  startMs: number;
  endMs: number;
}

/** One stacked series of a bar chart. */
export interface BarSeries {
  label: string;
  color: string;
  /** One value per bin, already in the chart's unit. */
  values: readonly number[];
}

/** A labelled horizontal reference line (e.g. a quota). */
export interface Guide {
  value: number;
  label: string;
  color: string;
}

/** One row of a Gantt strip. */
export interface GanttRow {
  label: string;
  bars: readonly { startMs: number; endMs: number; color: string; title: string }[];
}

/** Escapes text for HTML and SVG. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const fmt = (n: number) => String(Math.round(n * 10) / 10);

/** The smallest 1, 2 or 5 × 10^k at or above `value` (at least 1). */
export function niceCeiling(value: number): number {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function timeStep(durationMs: number): number {
  const steps = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000, 60_000];
  return steps.find((s) => durationMs / s <= 12) ?? 120_000;
}

const xOf = (ms: number, durationMs: number) =>
  LEFT + (Math.min(Math.max(ms, 0), durationMs) / durationMs) * PLOT_WIDTH;

/** Shaded phase bands, phase names along the top, and the time axis along the bottom. */
function timeFrame(phases: readonly PhaseBand[], durationMs: number, top: number, bottom: number): string {
  const parts: string[] = [];
  for (const [i, p] of phases.entries()) {
    const x0 = xOf(p.startMs, durationMs);
    const x1 = xOf(p.endMs, durationMs);
    parts.push(
      `<rect x="${fmt(x0)}" y="${top}" width="${fmt(x1 - x0)}" height="${bottom - top}" fill="${i % 2 === 0 ? '#f8fafc' : '#eef2f7'}"/>`,
      `<text x="${fmt(x0 + 4)}" y="${top + 12}" class="phase">${escapeHtml(p.name)}</text>`,
    );
  }
  const step = timeStep(durationMs);
  for (let t = 0; t <= durationMs; t += step) {
    const x = fmt(xOf(t, durationMs));
    const label = step < 1_000 ? (t / 1000).toFixed(1) : String(t / 1000);
    parts.push(
      `<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 4}" stroke="#64748b"/>`,
      `<text x="${x}" y="${bottom + 16}" text-anchor="middle" class="tick">${label} s</text>`,
    );
  }
  parts.push(`<line x1="${LEFT}" y1="${bottom}" x2="${LEFT + PLOT_WIDTH}" y2="${bottom}" stroke="#64748b"/>`);
  return parts.join('');
}

function svg(height: number, body: string, label: string): string {
  return (
    `<svg viewBox="0 0 ${VIEW_WIDTH} ${height}" width="100%" role="img" aria-label="${escapeHtml(label)}">` +
    `${body}</svg>`
  );
}

/**
 * Stacked bars, one per bin of `binMs`, series drawn bottom-up in the given order. `unit` names
 * the y axis (e.g. `req/s`).
 */
export function stackedBarChart(input: {
  label: string;
  unit: string;
  binMs: number;
  durationMs: number;
  phases: readonly PhaseBand[];
  series: readonly BarSeries[];
  guides?: readonly Guide[] | undefined;
  height?: number;
}): string {
  const { binMs, durationMs, series } = input;
  const height = input.height ?? 260;
  const top = 8;
  const bottom = height - 24;
  const bins = Math.max(0, ...series.map((s) => s.values.length));
  const totals = Array.from({ length: bins }, (_, i) => series.reduce((n, s) => n + (s.values[i] ?? 0), 0));
  const guides = input.guides ?? [];
  const yMax = niceCeiling(Math.max(0, ...totals, ...guides.map((g) => g.value)));
  const yOf = (v: number) => bottom - (v / yMax) * (bottom - top - 16);
  const parts = [timeFrame(input.phases, durationMs, top, bottom)];
  for (let g = 1; g <= 4; g++) {
    const v = (yMax / 4) * g;
    const y = fmt(yOf(v));
    parts.push(
      `<line x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_WIDTH}" y2="${y}" stroke="#cbd5e1" stroke-dasharray="2 3"/>`,
      `<text x="${LEFT - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" class="tick">${fmt(v)}</text>`,
    );
  }
  parts.push(
    `<text x="${LEFT - 6}" y="${bottom}" text-anchor="end" class="tick">0</text>`,
    `<text x="12" y="${fmt((top + bottom) / 2)}" class="axis" transform="rotate(-90 12 ${fmt((top + bottom) / 2)})" text-anchor="middle">${escapeHtml(input.unit)}</text>`,
  );
  const barWidth = (binMs / durationMs) * PLOT_WIDTH;
  for (let i = 0; i < bins; i++) {
    const x = fmt(xOf(i * binMs, durationMs) + 0.5);
    const w = fmt(Math.max(0.5, barWidth - 1));
    let base = 0;
    const tip = series.map((s) => `${s.label} ${fmt(s.values[i] ?? 0)}`).join(', ');
    const when = `${fmt((i * binMs) / 1000)}-${fmt(((i + 1) * binMs) / 1000)} s`;
    for (const s of series) {
      const v = s.values[i] ?? 0;
      if (v <= 0) continue;
      const y0 = yOf(base);
      const y1 = yOf(base + v);
      parts.push(
        `<rect x="${x}" y="${fmt(y1)}" width="${w}" height="${fmt(y0 - y1)}" fill="${s.color}"><title>${escapeHtml(`${when}: ${tip} ${input.unit}`)}</title></rect>`,
      );
      base += v;
    }
  }
  for (const g of guides) {
    const y = fmt(yOf(g.value));
    parts.push(
      `<line x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_WIDTH}" y2="${y}" stroke="${g.color}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
      `<text x="${LEFT + PLOT_WIDTH - 4}" y="${fmt(yOf(g.value) - 4)}" text-anchor="end" class="tick" style="fill:${g.color}">${escapeHtml(g.label)}</text>`,
    );
  }
  return svg(height, parts.join(''), input.label);
}

/** One row per entry, bars where something was true (a breaker open), same time axis. */
export function ganttChart(input: {
  label: string;
  durationMs: number;
  phases: readonly PhaseBand[];
  rows: readonly GanttRow[];
  rowHeight?: number;
}): string {
  const rowHeight = input.rowHeight ?? 14;
  const top = 20;
  const bottom = top + Math.max(1, input.rows.length) * rowHeight + 4;
  const height = bottom + 24;
  const parts = [timeFrame(input.phases, input.durationMs, 0, bottom)];
  for (const [i, row] of input.rows.entries()) {
    const y = top + i * rowHeight;
    parts.push(
      `<text x="${LEFT - 6}" y="${fmt(y + rowHeight / 2)}" text-anchor="end" dominant-baseline="middle" class="row">${escapeHtml(row.label)}</text>`,
      `<line x1="${LEFT}" y1="${fmt(y + rowHeight / 2)}" x2="${LEFT + PLOT_WIDTH}" y2="${fmt(y + rowHeight / 2)}" stroke="#e2e8f0"/>`,
    );
    for (const bar of row.bars) {
      const x0 = xOf(bar.startMs, input.durationMs);
      const x1 = xOf(bar.endMs, input.durationMs);
      parts.push(
        `<rect x="${fmt(x0)}" y="${fmt(y + 2)}" width="${fmt(Math.max(1, x1 - x0))}" height="${rowHeight - 4}" rx="2" fill="${bar.color}"><title>${escapeHtml(bar.title)}</title></rect>`,
      );
    }
  }
  if (input.rows.length === 0) {
    parts.push(`<text x="${LEFT + 8}" y="${top + 10}" class="row">no breaker opened</text>`);
  }
  return svg(height, parts.join(''), input.label);
}
