import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { coalescedLines, flushHeldLines } from '../../../lambda/wiring/coalesced-lines.js';

/** A writer whose turn ends when the test says so. */
function heldUntilTurnEnds(maxHeldChars?: number) {
  const writes: string[] = [];
  const turnEnds: (() => void)[] = [];
  const lines = coalescedLines((text) => writes.push(text), {
    maxHeldChars,
    schedule: (flush) => turnEnds.push(flush),
    flushOnExit: false,
  });
  const endTurn = () => {
    for (const flush of turnEnds.splice(0)) flush();
  };
  return { writes, lines, endTurn, scheduled: () => turnEnds.length };
}

describe('stdout lines coalesced per turn of the event loop', () => {
  it('writes the lines of one turn in one write, in order, each ending in a newline', () => {
    const { writes, lines, endTurn } = heldUntilTurnEnds();
    lines.line('{"type":"attempt"}');
    lines.line('{"type":"request"}');
    lines.line('{"level":"info"}');
    expect(writes).toEqual([]);
    endTurn();
    expect(writes).toEqual(['{"type":"attempt"}\n{"type":"request"}\n{"level":"info"}\n']);
  });

  it('schedules one flush per turn, however many lines the turn holds', () => {
    const { lines, endTurn, scheduled, writes } = heldUntilTurnEnds();
    for (let i = 0; i < 50; i++) lines.line(`line ${i}`);
    expect(scheduled()).toBe(1);
    endTurn();
    lines.line('next turn');
    expect(scheduled()).toBe(1);
    endTurn();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe('next turn\n');
  });

  it('a turn without lines writes nothing', () => {
    const { writes, lines, endTurn } = heldUntilTurnEnds();
    endTurn();
    lines.flush();
    expect(writes).toEqual([]);
  });

  it('writes at once when the held characters reach the limit, and not one character before', () => {
    // Each line is 9 characters with its newline.
    const { writes, lines, endTurn } = heldUntilTurnEnds(18);
    lines.line('12345678');
    expect(writes).toEqual([]);
    lines.line('abcdefgh');
    expect(writes).toEqual(['12345678\nabcdefgh\n']);
    lines.line('after');
    expect(writes).toHaveLength(1);
    endTurn();
    expect(writes).toEqual(['12345678\nabcdefgh\n', 'after\n']);
  });

  it('one character under the limit stays held', () => {
    const { writes, lines } = heldUntilTurnEnds(19);
    lines.line('12345678');
    lines.line('abcdefgh');
    expect(writes).toEqual([]);
  });

  it('flush writes what is held before anything written directly after it', () => {
    const { writes, lines, endTurn } = heldUntilTurnEnds();
    lines.line('ledger');
    lines.flush();
    writes.push('switchyard: stopped\n');
    endTurn();
    expect(writes).toEqual(['ledger\n', 'switchyard: stopped\n']);
  });

  it('on its own schedule the lines leave once the current turn is over', async () => {
    const writes: string[] = [];
    const lines = coalescedLines((text) => writes.push(text), { flushOnExit: false });
    lines.line('a');
    lines.line('b');
    await Promise.resolve();
    expect(writes).toEqual([]);
    await new Promise((done) => setImmediate(done));
    expect(writes).toEqual(['a\nb\n']);
  });

  it('at exit, a writer not yet closed writes what it holds; a closed one, or one made without the exit flush, does not', () => {
    const never = () => {};
    const open: string[] = [];
    const closed: string[] = [];
    const optedOut: string[] = [];
    const openLines = coalescedLines((text) => open.push(text), { schedule: never });
    const closedLines = coalescedLines((text) => closed.push(text), { schedule: never });
    const optedOutLines = coalescedLines((text) => optedOut.push(text), {
      schedule: never,
      flushOnExit: false,
    });
    closedLines.close();
    openLines.line('held at exit');
    closedLines.line('held after close');
    optedOutLines.line('held without the exit flush');
    flushHeldLines();
    expect(open).toEqual(['held at exit\n']);
    expect(closed).toEqual([]);
    expect(optedOut).toEqual([]);
    openLines.close();
  });

  it('a process that exits in the middle of a turn still writes its held lines', () => {
    const module = fileURLToPath(new URL('../../../lambda/wiring/coalesced-lines.ts', import.meta.url));
    const script = [
      `const { coalescedLines } = await import(${JSON.stringify(module)});`,
      'const lines = coalescedLines((text) => process.stdout.write(text));',
      "lines.line('first'); lines.line('second');",
      "throw new Error('crash before the turn ends');",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toBe('first\nsecond\n');
  });
});
