import { parseArgs } from 'node:util';
import { createSsmChainStore, resolveSsmPrefix } from '../aws/ssm-chains.js';
import { loadConfig } from '../config/config-file.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { type Catalog, type CatalogModel, createCatalog } from '../core/catalog/catalog.js';
import { type EffectiveChain, envVarName } from '../core/catalog/chain-sources.js';
import type { Tier } from '../core/dsl/types.js';
import type { AttemptTimeouts } from '../core/router/route-types.js';
import { describeSource, type OverrideSeen, resolvePipelineSource } from '../overrides/effective-source.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_OK } from './cli-io.js';
import { type ExplainedOutput, explainOutput, outputLines } from './explain-output.js';
import { formatTable } from './format-table.js';
import { createCliSsmClient, ssmCall } from './ssm-cli-support.js';

/** `switchyard explain --help`. */
export const EXPLAIN_USAGE = [
  'usage: switchyard explain [--config FILE] [--json] [--ssm] "<chain or pipeline>"',
  'with a pipeline name, --ssm also reads its operator override <prefix>/chains/<pipeline>, as the deployed gateway does',
].join('\n');

/**
 * The `--json` output of docs/design.md#the-chain-dsl; `source`, `chain` and `limits` only for a
 * pipeline, `routes` only when a model of the chain has several routes.
 */
interface ExplainOutput {
  tiers: string[][];
  warnings: string[];
  /** Route keys of each model of the chain that has several, in the order they are tried. */
  routes?: Record<string, string[]>;
  /** The time limits of every route of the chain, by route key (docs/configuration.md#timeouts). */
  timeouts: Record<string, AttemptTimeouts>;
  source?: string;
  chain?: string;
  /** The pipeline's substitution limits; `maxTier` null when every tier may answer. */
  limits?: { substitution: 'allow' | 'forbid'; maxTier: number | null };
  output?: ExplainedOutput;
  /** A timed override's end, ISO 8601 (docs/design.md#timed-overrides-and-canaries); only while one is in force. */
  until?: string;
  /** With `until`: a pin, whose routes' breaker openings are ignored. */
  pinned?: boolean;
  /** A running canary; `chain` and `tiers` are then the stable chain's. */
  canary?: { chain: string; tiers: string[][]; percent: number; since: string; autoAbort: boolean };
}

/** A pipeline resolved through its sources, with what the human output says about them. */
interface PipelineExplained {
  effective: EffectiveChain;
  skipped: string[];
  override: OverrideSeen | undefined;
}

/**
 * `switchyard explain`: shows how a chain or a pipeline resolves against the catalog. For a
 * pipeline it names the source that won: `env` and `config` always, the SSM override with
 * `--ssm` (an SSM failure then exits 1). Exits 2 with a one-line reason when nothing resolves
 * or the config is unusable.
 */
export async function explainCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      ssm: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1 || !positionals[0]?.trim()) throw new CliUsageError(EXPLAIN_USAGE);
  const target = positionals[0];
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const catalog = createCatalog(config);

  const pipeline = await explainPipeline(target, catalog, config, io, values.ssm);
  const parsed = pipeline?.effective ?? catalog.parse(target);
  const output: ExplainOutput = {
    tiers: parsed.tiers.map((tier) => tier.members.map((m) => m.key)),
    warnings: [...(pipeline?.skipped ?? []), ...parsed.warnings.map((w) => w.message)],
    timeouts: {},
  };
  const routes = severalRoutes(parsed.tiers, catalog);
  if (routes) output.routes = routes;
  output.timeouts = routeTimeouts(parsed.tiers, catalog);
  if (pipeline) {
    output.source = pipeline.effective.source;
    output.chain = pipeline.effective.chain;
    const { substitution, maxTier } = catalog.policy(target).route;
    output.limits = { substitution, maxTier: maxTier ?? null };
    output.output = explainOutput(config, target);
    Object.assign(output, overrideFields(pipeline.effective));
  }

  if (values.json) io.stdout(`${JSON.stringify(output)}\n`);
  else io.stdout(describe(target, parsed.tiers, output, catalog, pipeline, values.ssm));

  if (output.tiers.length === 0) {
    io.stderr(
      `switchyard: '${target}' resolves to no model${output.warnings[0] ? ` (${output.warnings.join('; ')})` : ''}\n`,
    );
    return EXIT_BAD_INPUT;
  }
  return EXIT_OK;
}

/** A configured pipeline, or one that only an env override names, resolves through its sources. */
async function explainPipeline(
  target: string,
  catalog: Catalog,
  config: SwitchyardConfig,
  io: CliIo,
  withSsm: boolean,
): Promise<PipelineExplained | undefined> {
  const overridden = io.env[envVarName(target)] !== undefined;
  if (!catalog.hasPipeline(target) && !overridden) return undefined;
  const override = withSsm ? await readOverride(target, config, io) : undefined;
  const now = io.clock?.now() ?? Date.now();
  const { effective, skipped } = await resolvePipelineSource(target, catalog, io.env, override, now);
  return {
    effective: effective ?? { pipeline: target, source: 'config', chain: '', tiers: [], warnings: [] },
    skipped,
    override,
  };
}

/** The limits of every route of the tiers' models, in the order they are tried. */
function routeTimeouts(tiers: Tier[], catalog: Catalog): Record<string, AttemptTimeouts> {
  const routes = tiers.flatMap((tier) =>
    tier.members.flatMap((m) => catalog.models.get(m.key)?.routes ?? []),
  );
  return Object.fromEntries(routes.map((r) => [r.key, r.timeouts]));
}

/** `until`/`pinned` of a timed override and `canary`, only when there are some. */
function overrideFields(effective: EffectiveChain): Pick<ExplainOutput, 'until' | 'pinned' | 'canary'> {
  const fields: Pick<ExplainOutput, 'until' | 'pinned' | 'canary'> = {};
  if (effective.until !== undefined) {
    fields.until = new Date(effective.until).toISOString();
    fields.pinned = effective.pinned === true;
  }
  const { canary } = effective;
  if (canary) {
    const tiers = canary.tiers.map((tier) => tier.members.map((m) => m.key));
    const { percent, since, autoAbort } = canary;
    fields.canary = { chain: canary.chain, tiers, percent, since, autoAbort };
  }
  return fields;
}

/** The human lines of a timed override or a canary. */
function overrideLines(output: ExplainOutput): string[] {
  const lines: string[] = [];
  if (output.until) {
    const pin = output.pinned ? ' (a pin: breaker openings of its routes are ignored)' : '';
    lines.push(`until     ${output.until}${pin}; then the next source applies again`);
  }
  if (output.canary) {
    const { percent, chain, since } = output.canary;
    lines.push(
      `canary    ${percent} % of requests on ${chain} (since ${since}); the rest on the chain above`,
    );
  }
  return lines;
}

/** The timeouts table of the human output: one row per route. */
function timeoutsTable(timeouts: Record<string, AttemptTimeouts>): string {
  const rows = Object.entries(timeouts).map(([key, t]) => [
    key,
    String(t.connectMs),
    String(t.firstByteMs),
    String(t.totalMs),
    String(t.idleMs),
  ]);
  return formatTable(['ROUTE', 'CONNECT MS', 'FIRST BYTE MS', 'TOTAL MS', 'STREAM IDLE MS'], rows);
}

/** Route keys of each model of the tiers that has more than one route; undefined when none has. */
function severalRoutes(tiers: Tier[], catalog: Catalog): Record<string, string[]> | undefined {
  const entries = tiers
    .flatMap((tier) => tier.members.map((m) => catalog.models.get(m.key)))
    .filter((m): m is CatalogModel => m !== undefined && m.routes.length > 1)
    .map((m) => [m.key, m.routes.map((r) => r.key)]);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The human line of a pipeline's substitution limits. */
function limitsLine({ substitution, maxTier }: NonNullable<ExplainOutput['limits']>): string {
  const tiers =
    substitution === 'forbid'
      ? 'only tier 1 may answer'
      : maxTier === null
        ? 'every tier may answer'
        : `tiers 1-${maxTier} may answer`;
  return `limits    substitution: ${substitution}, maxTier: ${maxTier ?? 'none'} (${tiers})`;
}

async function readOverride(pipeline: string, config: SwitchyardConfig, io: CliIo): Promise<OverrideSeen> {
  const store = createSsmChainStore({
    client: createCliSsmClient(io.env),
    ssmPrefix: resolveSsmPrefix(config, io.env),
  });
  const parameter = store.parameterName(pipeline);
  const current = await ssmCall(`reading ${parameter}`, () => store.current(pipeline));
  return { parameter, chain: current?.chain, version: current?.version };
}

function sourceLine(pipeline: PipelineExplained, withSsm: boolean): string {
  const words = describeSource(pipeline.effective, pipeline.override);
  if (withSsm) {
    const { override, effective } = pipeline;
    if (override?.chain === undefined) return `${words} (no operator override in ${override?.parameter})`;
    return effective.source === 'env' ? `${words}; it wins over the operator override` : words;
  }
  return `${words} (SSM override not read; add --ssm)`;
}

function describe(
  target: string,
  tiers: Tier[],
  output: ExplainOutput,
  catalog: Catalog,
  pipeline: PipelineExplained | undefined,
  withSsm: boolean,
): string {
  const lines: string[] = [];
  if (pipeline) {
    lines.push(
      `pipeline  ${target}`,
      `source    ${sourceLine(pipeline, withSsm)}`,
      `chain     ${output.chain}`,
      ...overrideLines(output),
    );
    const configChain = catalog.config.pipelines[target]?.chain;
    if (pipeline.effective.source !== 'config' && configChain !== undefined)
      lines.push(`config    ${configChain} (not in force)`);
    lines.push('');
  } else {
    lines.push(`chain  ${target}`, '');
  }
  // A model's further routes follow it, without tier or weight: they are tried before the next tier.
  const rows = tiers.flatMap((tier, index) =>
    tier.members.flatMap((m) => {
      const model = catalog.models.get(m.key);
      const first = [
        String(index + 1),
        m.key,
        model?.providerName ?? '?',
        String(m.weight),
        model?.model ?? '?',
      ];
      const further = (model?.routes ?? []).slice(1).map((r) => ['', m.key, r.providerName, '-', r.model]);
      return [first, ...further];
    }),
  );
  if (rows.length > 0)
    lines.push(formatTable(['TIER', 'MODEL', 'PROVIDER', 'WEIGHT', 'UPSTREAM MODEL'], rows));
  else lines.push('(no model)');
  if (output.routes) lines.push('', 'a model’s routes are tried in order before the next tier');
  if (rows.length > 0) lines.push('', timeoutsTable(output.timeouts));
  if (output.limits) lines.push('', limitsLine(output.limits));
  if (output.output) lines.push('', ...outputLines(output.output));
  if (output.warnings.length > 0) {
    lines.push('', 'warnings:', ...output.warnings.map((w) => `  - ${w}`));
  }
  return `${lines.join('\n')}\n`;
}
