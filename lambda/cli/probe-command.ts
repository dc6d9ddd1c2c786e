import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import { createCatalog } from '../core/catalog/catalog.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import { FAILURE_POLICY, type FailureClass } from '../core/failures/failure-class.js';
import { ProviderError } from '../core/failures/provider-error.js';
import { AWS_CREDENTIAL_HINT } from '../families/bedrock/bedrock-credentials.js';
import { createRouteModels } from '../families/create-route-models.js';
import { envProviderAccess } from '../wiring/env-provider-access.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

export const PROBE_USAGE =
  'usage: switchyard probe [--config FILE] [--json] [--timeout MS] [model|route ...]';

/**
 * What one probe found. `dead` models need a person: a retired model or a refused credential. A
 * model whose provider has no key here has outcome `not_configured`: it was not probed (nothing
 * was sent) and is not dead.
 */
export interface ProbeResult {
  model: string;
  provider: string;
  upstream: string;
  outcome: 'ok' | FailureClass;
  status: number | null;
  latencyMs: number;
  dead: boolean;
  detail: string;
}

/** Models probed at once: enough to be quick, few enough not to trip a provider's rate limit. */
const CONCURRENCY = 4;

/** The smallest call that proves the route: a one-word prompt, or for an embedding model one short text. */
function probeCall(model: ChatModel, dimensions: number | undefined, timeoutMs: number): Promise<unknown> {
  const options = { signal: AbortSignal.timeout(timeoutMs), timeoutMs };
  if (dimensions !== undefined && model.embed)
    return model.embed({ input: ['ok'], dimensions, sendDimensions: false }, options);
  return model.generate(
    { messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 5 },
    options,
  );
}

async function probeOne(
  model: ChatModel,
  entry: { model: string; dimensions?: number | undefined },
  timeoutMs: number,
): Promise<ProbeResult> {
  const started = performance.now();
  const base = { model: model.key, provider: model.provider, upstream: entry.model };
  try {
    await probeCall(model, entry.dimensions, timeoutMs);
    return {
      ...base,
      outcome: 'ok',
      status: 200,
      latencyMs: Math.round(performance.now() - started),
      dead: false,
      detail: '',
    };
  } catch (error) {
    const failure = error instanceof ProviderError ? error : undefined;
    const outcome: FailureClass = failure?.failureClass ?? 'unavailable';
    return {
      ...base,
      outcome,
      status: failure?.status ?? null,
      latencyMs: Math.round(performance.now() - started),
      // A refused credential or a retired model opens the breaker at once: the same rule decides here.
      dead: FAILURE_POLICY[outcome].opensAtOnce,
      detail: failure?.message ?? 'probe failed',
    };
  }
}

/**
 * `switchyard probe`: a minimal prompt to every route of every configured model (or of the models
 * named, or the route keys named, e.g. `gpt-4o~azure`), straight to the provider — no router, no fallback — and a report of dead or deprecated ones. Exits 1 when a
 * model is dead (its credential is refused or the model is gone), 0 otherwise: a rate limit or an
 * outage is reported but is not a dead route. A model whose provider has no key in this
 * environment is reported as `not_configured` (not probed, not dead); when that is true of every
 * model, nothing was probed and the exit is 1.
 */
export async function probeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
    },
    allowPositionals: true,
  });
  const timeoutMs = values.timeout === undefined ? 15_000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new CliUsageError('--timeout must be a positive number of ms');
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const catalog = createCatalog(config);
  const unknown = positionals.filter((name) => !catalog.models.has(name) && !catalog.routes.has(name));
  if (unknown.length > 0) throw new CliUsageError(`unknown model ${unknown.map((n) => `'${n}'`).join(', ')}`);
  // Every route of every model (or of the models named, or the routes named by key).
  const entries = [...catalog.models.values()]
    .flatMap((m) => (positionals.length === 0 || positionals.includes(m.key) ? m.routes : []))
    .concat(positionals.flatMap((name) => catalog.routes.get(name) ?? []))
    .filter((route, index, all) => all.findIndex((r) => r.key === route.key) === index);
  const access = envProviderAccess(config, io.env);
  const routes = createRouteModels(entries, access, undefined, config.limits);

  const results: ProbeResult[] = [];
  const queue = [...entries];
  const worker = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const route = routes.get(entry.key);
      if (!route) continue;
      const result = await probeOne(route.model, entry, timeoutMs);
      results.push(result);
      if (!values.json)
        io.stderr(`probed ${results.length}/${entries.length}: ${result.model} ${result.outcome}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, entries.length) }, worker));
  results.sort(
    (a, b) => entries.findIndex((e) => e.key === a.model) - entries.findIndex((e) => e.key === b.model),
  );

  const dead = results.filter((r) => r.dead);
  const keyless = results.filter((r) => r.outcome === 'not_configured');
  const probed = results.length - keyless.length;
  if (values.json) {
    const notConfigured = keyless.length === 0 ? {} : { notConfigured: keyless.map((r) => r.model) };
    io.stdout(`${JSON.stringify({ models: results, dead: dead.map((r) => r.model), ...notConfigured })}\n`);
  } else {
    const rows = results.map((r) => [
      r.model,
      r.provider,
      r.upstream,
      r.outcome,
      String(r.status ?? '-'),
      `${r.latencyMs} ms`,
      r.detail,
    ]);
    io.stdout(
      `${formatTable(['MODEL', 'PROVIDER', 'UPSTREAM MODEL', 'RESULT', 'STATUS', 'LATENCY', 'DETAIL'], rows)}\n`,
    );
    io.stdout(
      dead.length > 0
        ? `\ndead routes: ${dead.map((r) => `${r.model} (${r.outcome})`).join(', ')} — fix the credential or take the model out of its chains\n`
        : probed > 0 || keyless.length === 0
          ? `\nno dead routes among ${probed} model(s)\n`
          : `\nno model could be probed: none of the ${results.length} model(s) has its provider key here\n`,
    );
    // A Bedrock route lacks AWS credentials (the SDK's chain), not an API key: each is named apart.
    const isAws = (r: ProbeResult) => config.providers[r.provider]?.type === 'bedrock';
    const keyed = keyless.filter((r) => !isAws(r));
    const aws = keyless.filter(isAws);
    if (keyed.length > 0) {
      const hints = [...new Set(keyed.map((r) => access.keyHint(r.provider)))].join(', ');
      io.stdout(
        `not configured: ${keyed.map((r) => r.model).join(', ')} — no API key here (set ${hints}); not probed, not a dead route\n`,
      );
    }
    if (aws.length > 0)
      io.stdout(
        `not configured: ${aws.map((r) => r.model).join(', ')} — no AWS credentials here (${AWS_CREDENTIAL_HINT}); not probed, not a dead route\n`,
      );
  }
  // Nothing probed is no evidence of health: a run where every model lacks its key fails too.
  return dead.length === 0 && (probed > 0 || results.length === 0) ? EXIT_OK : EXIT_FAILED;
}
