import type { LineWriter } from './json-lines.js';

/** Held characters (newlines included) at which the lines are written at once, before the turn ends. */
export const DEFAULT_MAX_HELD_CHARS = 64 * 1024;

/** Lines that leave together: {@link CoalescedLines.line} holds, {@link CoalescedLines.flush} writes. */
export interface CoalescedLines {
  /** Holds one line (a newline is added) until the end of this turn of the event loop. */
  line: LineWriter;
  /** Writes every held line now, in one write; nothing to write, no write. */
  flush(): void;
  /** Flushes, and stops flushing when the process exits. */
  close(): void;
}

export interface CoalescedLinesOptions {
  /** Held characters at which the lines are written at once. Default {@link DEFAULT_MAX_HELD_CHARS}. */
  maxHeldChars?: number | undefined;
  /** Runs `flush` once the current turn is over. Default `setImmediate`. */
  schedule?: ((flush: () => void) => void) | undefined;
  /** Flushes when the process exits (an uncaught error included). Default true. */
  flushOnExit?: boolean | undefined;
}

/** The flushes of every writer not yet closed, run by one `exit` listener. */
const flushedAtExit = new Set<() => void>();
let exitListener = false;

/** What the process's `exit` runs: every writer not yet closed (and not made with `flushOnExit: false`) writes what it holds. */
export function flushHeldLines(): void {
  for (const flush of flushedAtExit) flush();
}

function flushAtExit(flush: () => void): void {
  if (!exitListener) {
    exitListener = true;
    process.once('exit', flushHeldLines);
  }
  flushedAtExit.add(flush);
}

/**
 * The local gateway's stdout: every request writes an attempt line and a request line, and a
 * write to a file, a pipe or a terminal is a system call that blocks the event loop. Lines held
 * until the end of the current turn of the event loop leave in one `write`, so 32 requests in
 * flight cost one system call where they cost 64. Order is kept; the held lines are written when
 * the turn ends, when they reach `maxHeldChars`, on {@link CoalescedLines.flush}, and on the
 * process's `exit` (which an uncaught exception also reaches). Only a `SIGKILL` in the middle of
 * a turn loses lines: those of that turn.
 */
export function coalescedLines(
  write: (text: string) => void,
  options: CoalescedLinesOptions = {},
): CoalescedLines {
  const maxHeldChars = options.maxHeldChars ?? DEFAULT_MAX_HELD_CHARS;
  const schedule = options.schedule ?? ((run: () => void) => void setImmediate(run));
  let held: string[] = [];
  let heldChars = 0;
  let scheduled = false;

  const flush = () => {
    if (held.length === 0) return;
    const text = held.length === 1 ? held[0] : held.join('');
    held = [];
    heldChars = 0;
    write(text as string);
  };
  const scheduledFlush = () => {
    scheduled = false;
    flush();
  };
  if (options.flushOnExit !== false) flushAtExit(flush);

  return {
    line: (line) => {
      const text = `${line}\n`;
      held.push(text);
      heldChars += text.length;
      if (heldChars >= maxHeldChars) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(scheduledFlush);
      }
    },
    flush,
    close: () => {
      flush();
      flushedAtExit.delete(flush);
    },
  };
}
