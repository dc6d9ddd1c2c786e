/**
 * Starting and stopping the servers the overhead bench measures, each in its own process.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { CpuMessage, ReadyMessage } from './serve-target.js';

/** One thing the bench sends requests to. */
export interface Target {
  name: string;
  /** Full URL of the chat completions endpoint. */
  url: string;
  headers: Record<string, string>;
  /** JSON request body. */
  body: string;
  /** CPU time (µs) the server's process has used so far, when the bench can ask it. */
  cpuMicros?: (() => Promise<number>) | undefined;
}

/** A server process the bench started, stopped by its own process id. */
export interface Child {
  port: number;
  stop(): void;
  /** Ends the process the way it ends itself (`process.exit`), so that `--cpu-prof` writes its profile. */
  finish?: (() => Promise<void>) | undefined;
  /** CPU time (µs) the process has used so far; only for servers forked by {@link startChild}. */
  cpuMicros?: (() => Promise<number>) | undefined;
}

const SERVE_TARGET = fileURLToPath(new URL('./serve-target.ts', import.meta.url));

/**
 * Forks `serve-target.ts <args>` under tsx and resolves with its port once it listens;
 * `nodeFlags` go to its node (e.g. `--cpu-prof`).
 */
export function startChild(args: string[], readyWithinMs = 30_000, nodeFlags: string[] = []): Promise<Child> {
  const child = fork(SERVE_TARGET, args, {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${args[0]} did not start within ${readyWithinMs} ms`));
    }, readyWithinMs);
    const cpuMicros = () =>
      new Promise<number>((answer) => {
        child.once('message', (message: CpuMessage) => answer(message.cpuMicros));
        child.send('cpu');
      });
    const finish = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.disconnect();
      });
    child.once('message', (message: ReadyMessage) => {
      clearTimeout(timer);
      resolve({ port: message.port, stop, cpuMicros, finish });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited with ${code} before it was ready`));
    });
  });
}

/** A free TCP port on 127.0.0.1 (for a server that cannot be asked to pick port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Linux `USER_HZ`: the unit of the CPU times in `/proc/<pid>/stat`. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (µs) used so far by every live process of one process group, from `/proc` (Linux);
 * undefined elsewhere. For servers the bench cannot ask itself: npx and the node it starts.
 */
async function processGroupCpuMicros(group: number): Promise<number | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of entries.filter((e) => /^\d+$/.test(e))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command name: state ppid pgrp … utime (12th) stime (13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** Portkey's gateway, or why it could not be started. */
export type PortkeyStart = { ok: true; child: Child } | { ok: false; reason: string };

/** Keeps the last line of a process's output, for the message when it fails. */
function lastLine(child: ChildProcess): () => string {
  let last = '';
  const keep = (chunk: Buffer) => {
    const lines = chunk.toString('utf8').trim().split('\n');
    last = lines[lines.length - 1]?.trim().slice(0, 200) ?? last;
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => last;
}

/**
 * Starts `npx --yes --allow-scripts=@portkey-ai/gateway @portkey-ai/gateway --port=N --headless`
 * (npx uses whatever registry npm is configured with; npm 11 refuses a package's install script
 * unless it is allowed by name, and Portkey's postinstall runs patch-package) and waits until it
 * answers HTTP. Never throws: when npx cannot fetch the package, or the gateway does not come up within `readyWithinMs`, it says why.
 */
export async function startPortkey(readyWithinMs: number): Promise<PortkeyStart> {
  const port = await freePort();
  // Its own process group, so that stopping it also stops the node process npx starts.
  const child = spawn(
    'npx',
    ['--yes', '--allow-scripts=@portkey-ai/gateway', '@portkey-ai/gateway', `--port=${port}`, '--headless'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const last = lastLine(child);
  const stop = () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  };
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `npx exited (${signal ?? code})`;
  });
  child.once('error', (error) => {
    exited = `cannot run npx: ${error.message}`;
  });
  const until = Date.now() + readyWithinMs;
  while (Date.now() < until) {
    if (exited !== undefined) {
      const why = last();
      return { ok: false, reason: why ? `${exited}: ${why}` : exited };
    }
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) });
      const group = child.pid as number;
      const probe = await processGroupCpuMicros(group);
      const cpuMicros =
        probe === undefined ? undefined : async () => (await processGroupCpuMicros(group)) ?? 0;
      return { ok: true, child: { port, stop, cpuMicros } };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  stop();
  const why = last();
  return {
    ok: false,
    reason: `not answering on port ${port} after ${readyWithinMs / 1000} s${why ? ` (${why})` : ''}`,
  };
}
