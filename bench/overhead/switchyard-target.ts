/**
 * Switchyard as the overhead bench runs it: the real local gateway (`createLocalGateway` +
 * `startServer`, as `switchyard serve` wires them) with two pipelines on the instant upstream:
 * `bench`, one model, and `bench-fallback`, whose first model always answers 503 so every request
 * falls back once (its breaker never opens, so the fallback is paid on every request). Ledger
 * lines are serialised and written to the null device the way `serve` writes them to stdout (the
 * lines of one turn of the event loop in one write), so their cost is counted.
 *
 * The modules are loaded from a source tree given at run time (default: this one), so that one
 * run can measure another commit side by side (`--baseline DIR` of the bench).
 */
import { existsSync, openSync, writeSync } from 'node:fs';
import { devNull } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunningServer } from '../../lambda/wiring/start-server.js';
import { INSTANT_MODEL } from './instant-upstream.js';

/** The pipeline the bench calls (`model` in the request body). */
export const BENCH_PIPELINE = 'bench';
/** The pipeline whose first route answers 503: one fallback per request. */
export const FALLBACK_PIPELINE = 'bench-fallback';

/** The repository this file belongs to. */
const OWN_ROOT = resolve(import.meta.dirname, '../..');

/** Starts Switchyard (from the tree at `root`) on 127.0.0.1 in front of the instant upstream. */
export async function startSwitchyardTarget(upstreamPort: number, root = OWN_ROOT): Promise<RunningServer> {
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root, path)).href);
  // The parser moved to lambda/config when the provider registry came (680bc51); an older tree
  // (the "before" side of a comparison) still has it in the core.
  const parser = existsSync(join(root, 'lambda/config/switchyard-config.ts'))
    ? 'lambda/config/switchyard-config.ts'
    : 'lambda/core/catalog/parse-config.ts';
  const { parseConfig } = await load<typeof import('../../lambda/config/switchyard-config.js')>(parser);
  const { silentLogger } = await load<typeof import('../../lambda/core/logger.js')>('lambda/core/logger.ts');
  const { createLocalGateway } = await load<typeof import('../../lambda/wiring/create-local-gateway.js')>(
    'lambda/wiring/create-local-gateway.ts',
  );
  const { envProviderAccess } = await load<typeof import('../../lambda/wiring/env-provider-access.js')>(
    'lambda/wiring/env-provider-access.ts',
  );
  const { createJsonLedger } = await load<typeof import('../../lambda/wiring/json-lines.js')>(
    'lambda/wiring/json-lines.ts',
  );
  const { startServer } = await load<typeof import('../../lambda/wiring/start-server.js')>(
    'lambda/wiring/start-server.ts',
  );
  const tracingFile = 'lambda/tracing/start-tracing.ts';
  const tracing = existsSync(join(root, tracingFile))
    ? await (await load<typeof import('../../lambda/tracing/start-tracing.js')>(tracingFile)).startTracing(
        process.env,
      )
    : undefined;
  const base = `http://127.0.0.1:${upstreamPort}`;
  const config = parseConfig({
    providers: {
      instant: { type: 'openai', baseURL: `${base}/v1` },
      down: { type: 'openai', baseURL: `${base}/down/v1` },
    },
    models: {
      instant: { provider: 'instant', model: INSTANT_MODEL },
      down: { provider: 'down', model: INSTANT_MODEL },
    },
    pipelines: {
      [BENCH_PIPELINE]: { chain: 'instant' },
      [FALLBACK_PIPELINE]: { chain: 'down,instant', breaker: { minSamples: 1_000_000_000 } },
    },
  });
  const env: NodeJS.ProcessEnv = {};
  const sink = openSync(devNull, 'w');
  // As serve writes stdout: the lines of one turn of the event loop in one write (older trees: one write per line).
  const coalescedFile = 'lambda/wiring/coalesced-lines.ts';
  const writeLine = existsSync(join(root, coalescedFile))
    ? (await load<typeof import('../../lambda/wiring/coalesced-lines.js')>(coalescedFile)).coalescedLines(
        (text) => writeSync(sink, text),
      ).line
    : (line: string) => writeSync(sink, `${line}\n`);
  const local = createLocalGateway({
    config,
    env,
    log: silentLogger,
    ledger: createJsonLedger(writeLine),
    access: envProviderAccess(config, env),
    tracer: tracing?.tracer,
  });
  return startServer(local.app, { port: 0, host: '127.0.0.1' });
}
