/**
 * Switchyard as the overhead bench runs it: the real local gateway (`createLocalGateway` +
 * `startServer`, as `switchyard serve` wires them) with one pipeline whose chain is one model on
 * the instant upstream. Ledger lines are serialised and written to the null device, as `serve`
 * writes them to stdout, so their cost is counted.
 */
import { openSync, writeSync } from 'node:fs';
import { devNull } from 'node:os';
import { parseConfig } from '../../lambda/core/catalog/parse-config.js';
import { silentLogger } from '../../lambda/core/logger.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { envProviderAccess } from '../../lambda/wiring/env-provider-access.js';
import { createJsonLedger } from '../../lambda/wiring/json-lines.js';
import { type RunningServer, startServer } from '../../lambda/wiring/start-server.js';
import { INSTANT_MODEL } from './instant-upstream.js';

/** The pipeline the bench calls (`model` in the request body). */
export const BENCH_PIPELINE = 'bench';

/**
 * Which `fetch` the OpenAI-compatible provider uses: `default` is whatever `envProviderAccess`
 * chooses, `global` forces the global (undici) `fetch`, for a before/after comparison.
 */
export type FetchChoice = 'default' | 'global';

/** Starts Switchyard on 127.0.0.1 in front of the instant upstream at `upstreamPort`. */
export async function startSwitchyardTarget(
  upstreamPort: number,
  fetchChoice: FetchChoice = 'default',
): Promise<RunningServer> {
  const config = parseConfig({
    providers: { instant: { type: 'openai', baseURL: `http://127.0.0.1:${upstreamPort}/v1` } },
    models: { instant: { provider: 'instant', model: INSTANT_MODEL } },
    pipelines: { [BENCH_PIPELINE]: { chain: 'instant' } },
  });
  const env: NodeJS.ProcessEnv = {};
  const sink = openSync(devNull, 'w');
  const base = envProviderAccess(config, env);
  const local = createLocalGateway({
    config,
    env,
    log: silentLogger,
    ledger: createJsonLedger((line) => writeSync(sink, `${line}\n`)),
    access: fetchChoice === 'global' ? { ...base, fetch: globalThis.fetch } : base,
  });
  return startServer(local.app, { port: 0, host: '127.0.0.1' });
}
