/**
 * Module init and CPU per request of the API Lambda handler as deployed: the bundle built with
 * `cdk synth`'s esbuild flags, in its own process under the CPU share of a Lambda of M MB
 * ({@link cpuShareFor}), against the breaker table in dynalite (its own process, not limited), the
 * tests' fake SSM and an instant fake OpenAI upstream (both in this process, not limited). CPU per
 * request therefore includes the SDK's DynamoDB calls (one Query, one UpdateItem per attempt).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { bundleApiHandler } from '../../test/helpers/api-bundle.js';
import { cpuShareFor } from './cpu-share.js';
import { BENCH_PROVIDER_KEY_PARAMETER, startHandlerEnvironment } from './handler-environment.js';

const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));

/** One probe's figures. */
export interface HandlerFigures {
  /** Module init (the bundle's import), wall ms. */
  initMs: number;
  /** CPU (user + system) per warm request, µs. */
  cpuUsPerRequest: number;
  /** Wall time per warm request, ms (upstream answers at once). */
  wallMsPerRequest: number;
}

/** Figures per memory size (undefined = unlimited), median of `runs` fresh processes each. */
export interface HandlerMeasurement {
  how: string;
  rows: { memoryMb: number | undefined; figures: HandlerFigures }[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function measureHandler(options: {
  sizes: (number | undefined)[];
  requests: number;
  /** Requests before the measured ones (JIT, connections, caches). */
  warmup: number;
  runs: number;
}): Promise<HandlerMeasurement> {
  const bundle = await bundleApiHandler();
  const upstream = await startFakeOpenAI();
  const around = await startHandlerEnvironment({
    providers: {
      fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: BENCH_PROVIDER_KEY_PARAMETER },
    },
    models: { a: { provider: 'fake', model: 'model-a', price: { inputPerMTok: 1, outputPerMTok: 2 } } },
    pipelines: { p: { chain: 'a' } },
  });
  const dir = around.dir;
  try {
    const env = {
      ...around.env,
      PROBE_BUNDLE: bundle.entry,
      PROBE_EVENT: around.writeEvent('event'),
      PROBE_REQUESTS: String(options.requests),
      PROBE_WARMUP: String(options.warmup),
    };
    const rows: HandlerMeasurement['rows'] = [];
    let how = 'none';
    for (const memoryMb of options.sizes) {
      const runs: HandlerFigures[] = [];
      for (let r = 0; r < options.runs; r++) {
        const share = cpuShareFor(memoryMb);
        if (memoryMb !== undefined) how = share.how;
        const out = join(dir, `probe-${memoryMb ?? 'all'}-${r}.json`);
        try {
          await runProbe({ ...env, PROBE_OUT: out }, share.procsFile);
        } finally {
          share.remove();
        }
        const result = JSON.parse(readFileSync(out, 'utf8')) as HandlerFigures & { first: string };
        if (!result.first.includes('"statusCode":200')) {
          throw new Error(`the probe's first request did not answer 200: ${result.first}`);
        }
        runs.push(result);
      }
      rows.push({
        memoryMb,
        figures: {
          initMs: median(runs.map((f) => f.initMs)),
          cpuUsPerRequest: median(runs.map((f) => f.cpuUsPerRequest)),
          wallMsPerRequest: median(runs.map((f) => f.wallMsPerRequest)),
        },
      });
    }
    return { how, rows };
  } finally {
    await Promise.all([around.close(), upstream.close()]);
    bundle.remove();
  }
}

/** Runs the probe, first moving it into the cgroup (`procsFile`) when there is one. */
function runProbe(env: NodeJS.ProcessEnv, procsFile: string | undefined): Promise<void> {
  const args = procsFile
    ? ['-c', `echo $$ > "${procsFile}" && exec "$0" "$@"`, process.execPath, PROBE]
    : [PROBE];
  const command = procsFile ? 'sh' : process.execPath;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`probe exited with ${code}: ${stderr.slice(-1500)}`)),
    );
  });
}
