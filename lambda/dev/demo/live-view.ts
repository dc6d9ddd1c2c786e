/**
 * What the demo shows while it runs. On a terminal: a few lines redrawn in place (progress,
 * success rate, which tier is serving, which breakers are open). Without one (CI, a pipe): a
 * plain line every few seconds and one when the phase changes. Never wider than 80 columns.
 */
import type { BreakerInterval } from './breaker-timeline.js';
import type { DemoPhase } from './demo-scenario.js';
import type { DriverTotals, LoadDriver } from './load-driver.js';
import { formatPercent } from './summary.js';

/** The state the view draws. */
export interface LiveSnapshot {
  elapsedMs: number;
  durationMs: number;
  phase: DemoPhase;
  totals: DriverTotals;
  inFlight: number;
  /** Requests that finished in the last second, and the successes among them by tier. */
  recent: { finished: number; byTier: number[] };
  /** Breakers open now. */
  open: BreakerInterval[];
}

/** How the view draws. */
export type LiveMode = 'tty' | 'lines';

export interface LiveView {
  /** Draws now and then every `intervalMs`. */
  start(): void;
  /** Draws one last time and stops the timer. Idempotent. */
  stop(): void;
}

/** One column short of 80: a line that fills the last column makes some terminals wrap early. */
const DEFAULT_WIDTH = 79;

/** Answers finished in the last second, scanning back from the newest record only. */
export function recentActivity(driver: LoadDriver, elapsedMs: number, tiers: number): LiveSnapshot['recent'] {
  const byTier = new Array<number>(tiers).fill(0);
  let finished = 0;
  const { records } = driver;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (!r || r.sentMs + r.latencyMs < elapsedMs - 1000) break;
    finished++;
    if (r.status === 200 && r.tier !== undefined) byTier[r.tier - 1] = (byTier[r.tier - 1] ?? 0) + 1;
  }
  return { finished, byTier };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** `100.0%`, or `-` before the first answer. */
function okRate(totals: DriverTotals): string {
  const rate = formatPercent(totals.ok, totals.ok + totals.errors);
  return rate === '-' ? '-' : `${rate}%`;
}

function bar(fraction: number, width: number, fill = '#', empty = '.'): string {
  const n = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return fill.repeat(n) + empty.repeat(width - n);
}

/** `generate/gpt-mini 4.1s, cron-03/gpt-mini 2.0s +25 more`, cut to fit `width`. */
export function describeOpen(open: readonly BreakerInterval[], elapsedMs: number, width: number): string {
  if (open.length === 0) return 'none';
  const left = (o: BreakerInterval) =>
    o.phase === 'probing' ? 'probing' : Number.isFinite(o.endMs) ? seconds(o.endMs - elapsedMs) : 'open';
  const parts = open.map((o) => `${o.pipeline}/${o.model} ${left(o)}`);
  let text = '';
  for (const [i, part] of parts.entries()) {
    const more = parts.length - i - 1;
    const next = text ? `${text}, ${part}` : part;
    const suffix = more > 0 ? ` +${more} more` : '';
    if (next.length + suffix.length > width) return `${text} +${parts.length - i} more`;
    text = next;
  }
  return text;
}

/** The lines of the in-place view, none longer than `width`. */
export function renderTty(s: LiveSnapshot, width = DEFAULT_WIDTH): string[] {
  const { totals } = s;
  const clock = `${seconds(s.elapsedMs)} / ${seconds(s.durationMs)}`;
  const title = `switchyard demo  ${s.phase.name}: ${s.phase.label}`.slice(0, width - clock.length - 2);
  const progress = Math.min(1, s.elapsedMs / s.durationMs);
  const served = s.recent.byTier.reduce((a, b) => a + b, 0);
  const tiers = s.recent.byTier
    .map((n, i) => {
      const share = served === 0 ? 0 : n / served;
      return `tier ${i + 1} ${String(Math.round(share * 100)).padStart(3)}% ${bar(share, 20)}`;
    })
    .join('  ');
  const absorbed =
    totals.upstream429 === totals.absorbed429
      ? `${totals.upstream429}, all absorbed`
      : `${totals.upstream429}, ${totals.absorbed429} absorbed`;
  const openLabel = `open breakers ${s.open.length}: `;
  return [
    `${title.padEnd(width - clock.length)}${clock}`,
    `[${bar(progress, width - 8, '=', ' ')}] ${String(Math.round(progress * 100)).padStart(3)}%`,
    `requests ${totals.sent}  ok ${okRate(totals)}  errors ${totals.errors}` +
      `  in flight ${s.inFlight}  ${s.recent.finished} req/s`,
    `serving  ${tiers}`,
    `upstream 429s ${absorbed}`,
    `${openLabel}${describeOpen(s.open, s.elapsedMs, width - openLabel.length)}`,
  ].map((line) => line.slice(0, width));
}

/** One plain line for logs: `[ 15.0s] spike     sent 612  ok 100.0%  tier 1 12% ...`. */
export function renderLine(s: LiveSnapshot): string {
  const { totals } = s;
  const served = s.recent.byTier.reduce((a, b) => a + b, 0);
  const tiers = s.recent.byTier
    .map((n, i) => `t${i + 1} ${String(served === 0 ? 0 : Math.round((n / served) * 100)).padStart(3)}%`)
    .join(' ');
  return (
    `[${seconds(s.elapsedMs).padStart(6)}] ${s.phase.name.padEnd(8)} sent ${String(totals.sent).padStart(5)}` +
    `  ok ${okRate(totals).padStart(6)}  ${tiers}` +
    `  429s ${String(totals.upstream429).padStart(4)}  open ${String(s.open.length).padStart(2)}`
  );
}

/** How often the view looks at the run, ms; a terminal redraws on every look. */
const LOOK_MS = 250;

/** Starts nothing until `start()`; the timer is unref'd so it can never hold the process open. */
export function createLiveView(options: {
  mode: LiveMode;
  write(text: string): void;
  snapshot(): LiveSnapshot;
  /** Without a terminal: ms between two plain lines. Default 5000. */
  lineEveryMs?: number | undefined;
  /** Terminal columns to stay within. Default 79. */
  width?: number | undefined;
}): LiveView {
  const { mode, write } = options;
  const lineEveryMs = options.lineEveryMs ?? 5_000;
  let drawn = 0;
  let phase: string | undefined;
  // The first progress line comes after one period: at 0 s there is nothing to report.
  let lastLineAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const look = (final: boolean) => {
    const s = options.snapshot();
    if (mode === 'lines') {
      // A phase change is news at once; progress lines come at a steady pace.
      if (s.phase.name !== phase) {
        phase = s.phase.name;
        write(`-- ${s.phase.name}: ${s.phase.label}\n`);
      }
      if (final || s.elapsedMs - lastLineAt >= lineEveryMs) {
        lastLineAt = s.elapsedMs;
        write(`${renderLine(s)}\n`);
      }
      return;
    }
    const lines = renderTty(s, options.width);
    // Back to the first line drawn last time, then overwrite each line and clear its rest.
    const up = drawn > 0 ? `\x1b[${drawn}F` : '';
    write(`${up}${lines.map((l) => `\x1b[2K${l}\n`).join('')}`);
    drawn = lines.length;
  };

  return {
    start() {
      if (mode === 'tty') write('\x1b[?25l');
      look(false);
      timer = setInterval(() => look(false), LOOK_MS);
      timer.unref();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      look(true);
      if (mode === 'tty') write('\x1b[?25h');
    },
  };
}
