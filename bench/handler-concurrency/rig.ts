/**
 * What bench/handler-concurrency runs the bundled handler in: the instant upstream, the fake
 * Anthropic upstream (a family whose adapter loads on first use), dynalite and the fake SSM, a
 * config with pipelines `p` (instant upstream) and `c` (Anthropic), and the probe (`probe.ts`,
 * bundled so that no TypeScript loader runs in the measured process).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startFakeAnthropic } from '../../lambda/dev/fakes/anthropic-fake.js';
import { BENCH_PROVIDER_KEY_PARAMETER, startHandlerEnvironment } from '../cost/handler-environment.js';
import { INSTANT_MODEL, startInstantUpstream } from '../overhead/instant-upstream.js';
import type { ProbeFigures } from './probe.js';

const PROBE_SOURCE = fileURLToPath(new URL('./probe.ts', import.meta.url));

/** What one probe process does. */
export interface ProbeRun {
  /** In-flight invocations of each level, in order; none: only init and the first requests. */
  levels: number[];
  /** Invocations per level. */
  invocations: number;
  /** Invocations at 8 in flight before the first level (none without levels). */
  warmup: number;
  /** Extra arguments for Node, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** The breaker store: `dynamodb` (dynalite, as deployed; the default) or `memory` (the handler alone). */
  store?: 'dynamodb' | 'memory';
}

/** The running servers and the probe runner. */
export interface ConcurrencyRig {
  /** Scratch directory (removed by `close`). */
  dir: string;
  /** Runs the probe on the bundle whose handler module is `entry`, in a fresh process. */
  runProbe(entry: string, name: string, run: ProbeRun): Promise<ProbeFigures>;
  close(): Promise<void>;
}

export async function startConcurrencyRig(): Promise<ConcurrencyRig> {
  const [upstream, anthropic] = await Promise.all([startInstantUpstream(), startFakeAnthropic()]);
  const around = await startHandlerEnvironment({
    providers: {
      fast: {
        type: 'openai',
        baseURL: `http://127.0.0.1:${upstream.port}/v1`,
        apiKeySecret: BENCH_PROVIDER_KEY_PARAMETER,
      },
      an: { type: 'anthropic', baseURL: anthropic.url, apiKeySecret: BENCH_PROVIDER_KEY_PARAMETER },
    },
    models: {
      a: { provider: 'fast', model: INSTANT_MODEL, price: { inputPerMTok: 1, outputPerMTok: 2 } },
      claude: { provider: 'an', model: 'claude-model' },
    },
    // The breaker never opens on the instant upstream; its window is still read and written per attempt.
    pipelines: { p: { chain: 'a' }, c: { chain: 'claude' } },
  });
  const probe = join(around.dir, 'probe.mjs');
  await build({
    entryPoints: [PROBE_SOURCE],
    outfile: probe,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
  });
  const event = around.writeEvent('event', { model: 'p', messages: [{ role: 'user', content: 'hi' }] });
  const lazy = around.writeEvent('lazy', { model: 'c', messages: [{ role: 'user', content: 'hi' }] });

  return {
    dir: around.dir,
    runProbe(entry, name, run) {
      const out = join(around.dir, `${name}.json`);
      const env = {
        ...around.env,
        // Managed Instances set this; Powertools then keeps each invocation's context apart.
        AWS_LAMBDA_MAX_CONCURRENCY: '64',
        PROBE_BUNDLE: entry,
        PROBE_EVENT: event,
        PROBE_LAZY_EVENT: lazy,
        PROBE_LEVELS: run.levels.join(','),
        PROBE_INVOCATIONS: String(run.invocations),
        PROBE_WARMUP: String(run.levels.length > 0 ? run.warmup : 0),
        PROBE_OUT: out,
        SWITCHYARD_STORE: run.store ?? 'dynamodb',
      };
      return new Promise((resolve, reject) => {
        // Its stdout (Powertools log and ledger lines) is discarded: the runtime ships it elsewhere.
        const child = spawn(process.execPath, [...(run.nodeArgs ?? []), probe], {
          env,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.once('exit', (code) => {
          if (code !== 0) return reject(new Error(`probe exited with ${code}: ${stderr.slice(-1500)}`));
          const figures = JSON.parse(readFileSync(out, 'utf8')) as ProbeFigures;
          const bad = [figures.first, figures.firstLazyFamily].find((c) => c && c.status !== 200);
          if (bad) return reject(new Error(`a first request answered ${bad.status}`));
          resolve(figures);
        });
      });
    },
    async close() {
      await Promise.all([around.close(), upstream.close(), anthropic.close()]);
    },
  };
}
