import { parseArgs } from 'node:util';
import {
  type ChainVersion,
  createSsmChainStore,
  RollbackError,
  resolveSsmPrefix,
  type SsmChainStore,
} from '../aws/ssm-chains.js';
import { loadConfig } from '../config/config-file.js';
import { type Catalog, createCatalog } from '../core/catalog/catalog.js';
import { envVarName, useMismatch } from '../core/catalog/chain-sources.js';
import type { ParsedChain } from '../core/dsl/types.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_OK } from './cli-io.js';
import { resolvePipelineSource } from './effective-source.js';
import { formatTable } from './format-table.js';
import { createCliSsmClient, ssmCall } from './ssm-cli-support.js';

/** `switchyard chain --help`. */
export const CHAIN_USAGE = [
  'usage: switchyard chain get <pipeline>',
  '       switchyard chain set <pipeline> "<chain>" [--force]',
  '       switchyard chain clear <pipeline>',
  '       switchyard chain history <pipeline>',
  '       switchyard chain rollback <pipeline> [--to VERSION] [--force]',
  'the operator override is the SSM parameter <prefix>/chains/<pipeline>; clear deletes it (and its history),',
  'so the pipeline returns to its config chain',
  'every form takes --config FILE; the SSM prefix is SWITCHYARD_SSM_PREFIX, else aws.ssmPrefix, else /switchyard',
].join('\n');

const PIPELINE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

interface ChainContext {
  pipeline: string;
  catalog: Catalog;
  store: SsmChainStore;
  cacheSeconds: number;
  io: CliIo;
  force: boolean;
}

/**
 * `switchyard chain`: reads, writes and clears a pipeline's operator override in SSM
 * (`<prefix>/chains/<pipeline>`). `set` and `rollback` check the chain against the catalog
 * before writing and refuse one that resolves to no model (exit 2); `clear` deletes the override
 * so the config chain applies again. AWS failures exit 1.
 */
export async function chainCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      force: { type: 'boolean', default: false },
      to: { type: 'string' },
    },
    allowPositionals: true,
  });
  const [action, pipeline, chain, ...rest] = positionals;
  const arity = action === 'set' ? 3 : 2;
  if (!action || !pipeline || positionals.length !== arity || rest.length > 0)
    throw new CliUsageError(CHAIN_USAGE);
  if (!PIPELINE_NAME.test(pipeline))
    throw new CliUsageError(`pipeline name '${pipeline}' may contain only letters, digits and - _ .`);

  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const catalog = createCatalog(config);
  const store = createSsmChainStore({
    client: createCliSsmClient(io.env),
    ssmPrefix: resolveSsmPrefix(config, io.env),
  });
  const cacheSeconds = config.aws.chainCacheMs / 1000;
  const context: ChainContext = { pipeline, catalog, store, cacheSeconds, io, force: values.force };

  switch (action) {
    case 'get':
      return getChain(context);
    case 'set':
      return setChain(context, chain ?? '');
    case 'clear':
      return clearChain(context);
    case 'history':
      return showHistory(context);
    case 'rollback':
      return rollback(context, values.to);
    default:
      throw new CliUsageError(`unknown action '${action}'\n${CHAIN_USAGE}`);
  }
}

/** SSM's DeleteParameter takes the parameter's history with it; `history` and `rollback` say so. */
const HISTORY_GONE = 'a cleared override leaves no history: SSM deletes it with the parameter';

function noOverride(c: ChainContext, detail = ''): number {
  if (!c.catalog.hasPipeline(c.pipeline)) {
    throw new CliUsageError(
      `no SSM override for pipeline ${c.pipeline}, and the config has no such pipeline (${known(c.catalog)})`,
    );
  }
  const configChain = c.catalog.config.pipelines[c.pipeline]?.chain ?? '';
  const envName = envVarName(c.pipeline);
  const envChain = c.io.env[envName]?.trim();
  const applies = envChain
    ? `${envName} in this environment applies: ${envChain}`
    : `the config chain applies: ${configChain}`;
  c.io.stdout(`no SSM override for pipeline ${c.pipeline}${detail}; ${applies}\n`);
  return EXIT_OK;
}

function known(catalog: Catalog): string {
  return catalog.pipelines.length > 0 ? `configured: ${catalog.pipelines.join(', ')}` : 'none configured';
}

function tiersLine(parsed: ParsedChain): string {
  return parsed.tiers.map((t) => t.members.map((m) => m.key).join('|')).join(' → ');
}

function printLines(io: CliIo, lines: readonly string[]): void {
  io.stdout(`${lines.join('\n')}\n`);
}

function pickedUp(c: ChainContext): string {
  return `running Lambda containers pick it up within ${c.cacheSeconds} s`;
}

function printWarnings(io: CliIo, parsed: ParsedChain): void {
  for (const w of parsed.warnings) io.stderr(`warning: ${w.message}\n`);
}

async function getChain(c: ChainContext): Promise<number> {
  const name = c.store.parameterName(c.pipeline);
  const current = await ssmCall(`reading ${name}`, () => c.store.current(c.pipeline));
  if (!current) return noOverride(c);
  const parsed = c.catalog.parse(current.chain);
  const lines = [
    `pipeline   ${c.pipeline}`,
    `source     ${await overrideStanding(c, name, current.chain)}`,
    `parameter  ${name}`,
    `version    ${current.version}${current.modified ? ` (${isoSeconds(current.modified)})` : ''}`,
    `chain      ${current.chain}`,
    `tiers      ${parsed.tiers.length > 0 ? tiersLine(parsed) : '(no model)'}`,
  ];
  printLines(c.io, lines);
  printWarnings(c.io, parsed);
  if (parsed.tiers.length === 0)
    c.io.stderr(
      'note: this override resolves to no model here; the gateway skips it and uses the config chain\n',
    );
  return EXIT_OK;
}

/** Whether this override is what the gateway routes by, by the same rule the gateway uses. */
async function overrideStanding(c: ChainContext, parameter: string, chain: string): Promise<string> {
  if (!c.catalog.hasPipeline(c.pipeline))
    return `none: the config has no pipeline ${c.pipeline}, so the gateway does not route it`;
  const { effective } = await resolvePipelineSource(c.pipeline, c.catalog, c.io.env, { parameter, chain });
  switch (effective?.source) {
    case 'ssm':
      return 'ssm: this operator override is in force';
    case 'env':
      return `env: ${envVarName(c.pipeline)} in this environment wins over this override`;
    default:
      return 'config: this override resolves to no model, so the gateway skips it';
  }
}

async function setChain(c: ChainContext, chain: string): Promise<number> {
  const text = chain.trim();
  const parsed = c.catalog.parse(text);
  if (parsed.tiers.length === 0) {
    const why = parsed.warnings.map((w) => w.message).join('; ') || 'it is empty';
    c.io.stderr(`switchyard chain: '${text}' resolves to no model (${why}); nothing written\n`);
    return EXIT_BAD_INPUT;
  }
  const mismatch = useMismatch(c.pipeline, parsed.tiers, c.catalog);
  if (mismatch !== undefined) {
    c.io.stderr(`switchyard chain: '${text}' ${mismatch}; the gateway would skip it; nothing written\n`);
    return EXIT_BAD_INPUT;
  }
  printWarnings(c.io, parsed);
  if (!c.catalog.hasPipeline(c.pipeline) && !c.force) {
    c.io.stderr(
      `switchyard chain: unknown pipeline '${c.pipeline}' (${known(c.catalog)}); pass --force to write it anyway\n`,
    );
    return EXIT_BAD_INPUT;
  }
  const name = c.store.parameterName(c.pipeline);
  const version = await ssmCall(`writing ${name}`, () =>
    c.store.put(c.pipeline, text, `chain of ${c.pipeline}, set by switchyard chain set`),
  );
  printLines(c.io, [
    `pipeline ${c.pipeline} now routes on: ${text}`,
    `tiers: ${tiersLine(parsed)}`,
    `written ${name} version ${version}; ${pickedUp(c)}`,
  ]);
  return EXIT_OK;
}

async function showHistory(c: ChainContext): Promise<number> {
  const name = c.store.parameterName(c.pipeline);
  const versions = await ssmCall(`reading the history of ${name}`, () => c.store.history(c.pipeline));
  if (versions.length === 0) return noOverride(c, ` (${HISTORY_GONE})`);
  const rows = versions.map((v) => [
    String(v.version),
    v.modified ? isoSeconds(v.modified) : '?',
    shortPrincipal(v.by),
    v.chain,
  ]);
  c.io.stdout(`${name} (newest first)\n\n${formatTable(['VERSION', 'MODIFIED', 'BY', 'CHAIN'], rows)}\n`);
  return EXIT_OK;
}

async function rollback(c: ChainContext, to: string | undefined): Promise<number> {
  const toVersion = to === undefined ? undefined : Number(to);
  if (toVersion !== undefined && !(Number.isInteger(toVersion) && toVersion > 0))
    throw new CliUsageError(`--to must be a version number, not '${to}'`);
  const name = c.store.parameterName(c.pipeline);
  const check = (target: ChainVersion) => {
    const parsed = c.catalog.parse(target.chain);
    if (parsed.tiers.length === 0 && !c.force) {
      throw new RollbackError(
        `version ${target.version} ('${target.chain}') resolves to no model in this catalog; pass --force to restore it anyway`,
      );
    }
    printWarnings(c.io, parsed);
  };
  try {
    const result = await ssmCall(`rolling back ${name}`, () =>
      c.store.rollback(c.pipeline, { toVersion, check }),
    );
    printLines(c.io, [
      `pipeline ${c.pipeline} now routes on: ${result.to.chain}`,
      `restored version ${result.to.version} over version ${result.from.version} (${result.from.chain})`,
      `written ${name} version ${result.version}; ${pickedUp(c)}`,
    ]);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof RollbackError) {
      const hint = error.message.startsWith('no SSM override') ? ` (${HISTORY_GONE})` : '';
      throw new CliUsageError(`cannot roll back ${c.pipeline}: ${error.message}${hint}`);
    }
    throw error;
  }
}

async function clearChain(c: ChainContext): Promise<number> {
  const name = c.store.parameterName(c.pipeline);
  const current = await ssmCall(`reading ${name}`, () => c.store.current(c.pipeline));
  const deleted = current ? await ssmCall(`deleting ${name}`, () => c.store.delete(c.pipeline)) : false;
  if (!current || !deleted) return noOverride(c, ', nothing to clear');
  const configChain = c.catalog.config.pipelines[c.pipeline]?.chain;
  const now =
    configChain === undefined
      ? `the config has no pipeline ${c.pipeline}; nothing routes it now`
      : `pipeline ${c.pipeline} now routes on its config chain: ${configChain}`;
  printLines(c.io, [
    `cleared the operator override of ${c.pipeline} (was: ${current.chain}, version ${current.version})`,
    now,
    `deleted ${name}; ${pickedUp(c)}`,
    `SSM deleted the override's history with it; to restore it: switchyard chain set ${c.pipeline} "${current.chain}"`,
  ]);
  const envName = envVarName(c.pipeline);
  if (c.io.env[envName]?.trim())
    c.io.stderr(
      `note: ${envName} is set in this environment; wherever it is set, it wins over the config chain\n`,
    );
  return EXIT_OK;
}

/** `2025-06-01T12:00:00Z`: the second is as precise as an operator needs. */
function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `arn:aws:sts::123456789012:assumed-role/Ops/alice` → `assumed-role/Ops/alice`. */
function shortPrincipal(arn: string | undefined): string {
  if (!arn) return '?';
  const parts = arn.split(':');
  return parts.length >= 6 ? parts.slice(5).join(':') : arn;
}
