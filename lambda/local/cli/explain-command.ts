import { parseArgs } from 'node:util';
import { type Catalog, createCatalog } from '../../core/catalog/catalog.js';
import {
  createConfigChainSource,
  createEnvChainSource,
  type EffectiveChain,
  envVarName,
  resolveEffectiveChain,
} from '../../core/catalog/chain-sources.js';
import type { Tier } from '../../core/dsl/types.js';
import type { Logger } from '../../core/logger.js';
import { loadConfig } from '../config-file.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

export const EXPLAIN_USAGE = 'usage: switchyard explain [--config FILE] [--json] "<chain or pipeline>"';

/** The `--json` output of SPEC §2; `source` and `chain` only for a pipeline. */
interface ExplainOutput {
  tiers: string[][];
  warnings: string[];
  source?: string;
  chain?: string;
}

/**
 * `switchyard explain`: shows how a chain or a pipeline resolves against the catalog. Exits 2
 * with a one-line reason when nothing resolves or the config is unusable.
 */
export async function explainCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  if (positionals.length !== 1 || !positionals[0]?.trim()) throw new CliUsageError(EXPLAIN_USAGE);
  const target = positionals[0];
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const catalog = createCatalog(config);

  const skipped: string[] = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message, fields) => skipped.push(`${String(fields?.source ?? 'source')}: ${message}`),
  };
  const effective = await explainPipeline(target, catalog, io, log);
  const parsed = effective ?? { ...catalog.parse(target), source: undefined, chain: undefined };
  const output: ExplainOutput = {
    tiers: parsed.tiers.map((tier) => tier.members.map((m) => m.key)),
    warnings: [...skipped, ...parsed.warnings.map((w) => w.message)],
  };
  if (effective) {
    output.source = effective.source;
    output.chain = effective.chain;
  }

  if (values.json) io.stdout(`${JSON.stringify(output)}\n`);
  else io.stdout(describe(target, parsed.tiers, output, catalog));

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
  io: CliIo,
  log: Logger,
): Promise<EffectiveChain | undefined> {
  const overridden = io.env[envVarName(target)] !== undefined;
  if (!catalog.hasPipeline(target) && !overridden) return undefined;
  const sources = [createEnvChainSource(io.env), createConfigChainSource(catalog)];
  const effective = await resolveEffectiveChain(target, sources, catalog, log);
  return effective ?? { pipeline: target, source: 'config', chain: '', tiers: [], warnings: [] };
}

function describe(target: string, tiers: Tier[], output: ExplainOutput, catalog: Catalog): string {
  const lines: string[] = [];
  if (output.source) {
    lines.push(`pipeline  ${target}`, `source    ${output.source}`, `chain     ${output.chain}`, '');
  } else {
    lines.push(`chain  ${target}`, '');
  }
  const rows = tiers.flatMap((tier, index) =>
    tier.members.map((m) => {
      const model = catalog.models.get(m.key);
      return [String(index + 1), m.key, model?.providerName ?? '?', String(m.weight), model?.model ?? '?'];
    }),
  );
  if (rows.length > 0)
    lines.push(formatTable(['TIER', 'MODEL', 'PROVIDER', 'WEIGHT', 'UPSTREAM MODEL'], rows));
  else lines.push('(no model)');
  if (output.warnings.length > 0) {
    lines.push('', 'warnings:', ...output.warnings.map((w) => `  - ${w}`));
  }
  return `${lines.join('\n')}\n`;
}
