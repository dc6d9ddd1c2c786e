/**
 * What an oversized upstream answer costs the gateway's memory: a real `switchyard serve` process
 * (one per case, so each starts clean) in front of a loopback upstream that answers one request
 * with a 10 MB JSON answer, a 100 MB body that is not JSON, or one 50 MB SSE `data:` line. The
 * figure is the serve process's peak RSS during the request over its RSS just before it
 * (`VmHWM` after `clear_refs`, Linux only). Prints one table; no assertion.
 *
 * `npm run bench:upstream-size` (`-- --baseline DIR` adds another source tree's gateway, e.g.
 * `main` before the bounds, side by side).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type OversizedAnswer,
  type SentBody,
  startOversizedUpstream,
} from '../../lambda/dev/fakes/oversized-upstream.js';

const MB = 1024 * 1024;
const CASES: Array<{ name: string; answer: OversizedAnswer; stream: boolean }> = [
  { name: '10 MB JSON answer', answer: { shape: 'json', bytes: 10 * MB }, stream: false },
  { name: '100 MB non-JSON body', answer: { shape: 'text', bytes: 100 * MB }, stream: false },
  { name: '50 MB SSE data: line', answer: { shape: 'sse-line', bytes: 50 * MB }, stream: true },
];

const { values } = parseArgs({ options: { baseline: { type: 'string' } } });
const trees: Array<{ label: string; dir: string }> = [{ label: 'switchyard', dir: process.cwd() }];
if (values.baseline) trees.push({ label: 'switchyard (baseline)', dir: resolve(values.baseline) });

/** `VmRSS` / `VmHWM` of a process, in bytes. */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return Number(kb) * 1024;
}

/** Starts `switchyard serve` of `dir` on `config`; resolves with its URL once it listens. */
function serve(dir: string, config: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    [join(dir, 'bin/switchyard.js'), 'serve', '--config', config, '--port', '0'],
    {
      cwd: dir,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const gather = (data: Buffer) => {
      out += data;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) resolve({ proc, url });
    };
    proc.stdout?.on('data', gather);
    proc.stderr?.on('data', gather);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
}

async function measure(dir: string, config: string, upstream: Upstream, c: (typeof CASES)[number]) {
  const { proc, url } = await serve(dir, config);
  try {
    const pid = proc.pid as number;
    const post = (stream: boolean) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'big', stream, messages: [{ role: 'user', content: 'hello' }] }),
      }).then(async (res) => ({ res, text: await res.text() }));
    // Warm the path with a small answer, then start the peak from the RSS of a settled process.
    upstream.next = { shape: 'json', bytes: 1024 };
    await post(c.stream);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = memory(pid, 'VmRSS');
    upstream.next = c.answer;
    upstream.server.sent.length = 0;
    const started = Date.now();
    const { res, text } = await post(c.stream);
    const ms = Date.now() - started;
    await upstream.server.settled();
    const grown = memory(pid, 'VmHWM') - before;
    const outcome = res.headers.get('x-switchyard-route') ?? `${res.status} ${text.slice(0, 60)}`;
    const sent = upstream.server.sent[0] as SentBody;
    return { grown, ms, outcome, written: sent.written, finished: sent.finished };
  } finally {
    proc.kill('SIGTERM');
  }
}

interface Upstream {
  next: OversizedAnswer;
  server: Awaited<ReturnType<typeof startOversizedUpstream>>;
}

async function main(): Promise<void> {
  const upstream = { next: { shape: 'json', bytes: 1024 } } as Upstream;
  upstream.server = await startOversizedUpstream(() => upstream.next);
  const work = mkdtempSync(join(tmpdir(), 'bench-upstream-size-'));
  const config = join(work, 'switchyard.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: { up: { type: 'openai', baseURL: `${upstream.server.url}/v1` } },
      // One attempt with time enough for the old, unbounded read of 100 MB to end on its own.
      models: { big: { provider: 'up', model: 'big-model', timeoutMs: 120_000 } },
      router: { maxAttempts: 1, deadlineMs: 120_000 },
    }),
  );
  const rows: string[][] = [];
  try {
    for (const c of CASES) {
      for (const tree of trees) {
        const m = await measure(tree.dir, config, upstream, c);
        rows.push([
          c.name,
          tree.label,
          `+${(m.grown / MB).toFixed(0)} MB`,
          `${(m.written / MB).toFixed(1)} MB${m.finished ? ' (all)' : ''}`,
          String(m.ms),
          m.outcome,
        ]);
      }
    }
  } finally {
    await upstream.server.close();
    rmSync(work, { recursive: true, force: true });
  }
  const head = ['answer', 'gateway', 'peak RSS growth', 'upstream wrote', 'ms', 'route'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  console.log(
    `oversized upstream answers, one request per fresh 'switchyard serve' — Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)} at the start\n`,
  );
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

await main();
