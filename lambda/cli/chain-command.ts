import { parseArgs } from 'node:util';
import { createSsmChainStore, resolveSsmPrefix } from '../aws/ssm-chains.js';
import { loadConfig } from '../config/config-file.js';
import { createCatalog } from '../core/catalog/catalog.js';
import {
  type OverrideDocument,
  overrideAt,
  readOverride,
  timedInForce,
} from '../core/catalog/chain-override.js';
import { envVarName } from '../core/catalog/chain-sources.js';
import type { ParsedChain } from '../core/dsl/types.js';
import { resolvePipelineSource } from '../overrides/effective-source.js';
import { checkOverrideChain } from '../overrides/override-changes.js';
import { canaryStatus } from './canary-status.js';
import {
  byCli,
  type ChainContext,
  chainActions,
  isoSeconds,
  known,
  noOverride,
  pickedUp,
  printLines,
  printWarnings,
} from './chain-context.js';
import { clearChain, rollback, showHistory } from './chain-history-command.js';
import {
  abortCanary,
  type OverrideFlags,
  promoteCanary,
  setOverride,
  wantsOverride,
} from './chain-override-command.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_OK } from './cli-io.js';
import { createCliSsmClient, ssmCall } from './ssm-cli-support.js';

/** `switchyard chain --help`. */
export const CHAIN_USAGE = [
  'usage: switchyard chain get <pipeline>',
  '       switchyard chain set <pipeline> "<chain>" [--force]',
  '       switchyard chain set <pipeline> "<chain>" --for DURATION | --until TIME [--pin] [--env]',
  '       switchyard chain set <pipeline> "<chain>" --canary PERCENT [--auto-abort] [--env]',
  '       switchyard chain promote <pipeline>',
  '       switchyard chain abort <pipeline>',
  '       switchyard chain status <pipeline> --ledger FILE|-',
  '       switchyard chain clear <pipeline>',
  '       switchyard chain history <pipeline>',
  '       switchyard chain rollback <pipeline> [--to VERSION] [--force]',
  'the operator override is the SSM parameter <prefix>/chains/<pipeline>; clear deletes it (and its history),',
  'so the pipeline returns to its config chain',
  '--for 2h / --until 2026-12-01T20:00:00Z: the chain applies until then, and the pipeline returns by itself to',
  'what was in force before; --pin also ignores breaker openings of its routes meanwhile; --canary 10 sends 10 %',
  'of the requests to the chain until promote or abort (--auto-abort: each container stops it once its failure rate',
  'reaches the breaker threshold); --env prints the MODEL_<PIPELINE> value instead of writing SSM',
  'every form takes --config FILE; the SSM prefix is SWITCHYARD_SSM_PREFIX, else aws.ssmPrefix, else /switchyard',
].join('\n');

const PIPELINE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

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
      for: { type: 'string' },
      until: { type: 'string' },
      pin: { type: 'boolean', default: false },
      canary: { type: 'string' },
      env: { type: 'boolean', default: false },
      'auto-abort': { type: 'boolean', default: false },
      ledger: { type: 'string' },
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
  const now = () => io.clock?.now() ?? Date.now();
  const context: ChainContext = { pipeline, catalog, store, cacheSeconds, io, force: values.force, now };

  const flags: OverrideFlags = {
    for: values.for,
    until: values.until,
    pin: values.pin,
    canary: values.canary,
    env: values.env,
    autoAbort: values['auto-abort'],
  };
  if (action !== 'set' && wantsOverride(flags))
    throw new CliUsageError('--for, --until, --pin, --canary, --auto-abort and --env belong to chain set');
  switch (action) {
    case 'get':
      return getChain(context);
    case 'set':
      return setChain(context, chain ?? '', flags);
    case 'promote':
      return promoteCanary(context);
    case 'abort':
      return abortCanary(context);
    case 'status':
      return canaryStatus(context, values.ledger);
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

function tiersLine(parsed: ParsedChain): string {
  return parsed.tiers.map((t) => t.members.map((m) => m.key).join('|')).join(' → ');
}

async function getChain(c: ChainContext): Promise<number> {
  const name = c.store.parameterName(c.pipeline);
  const current = await ssmCall(`reading ${name}`, () => c.store.current(c.pipeline));
  if (!current) return noOverride(c);
  const reading = readOverride(current.chain);
  const inForce = reading.ok ? overrideAt(reading.document, c.now()) : undefined;
  const parsed = c.catalog.parse(inForce?.chain ?? '');
  const lines = [
    `pipeline   ${c.pipeline}`,
    `source     ${await overrideStanding(c, name, current.chain)}`,
    `parameter  ${name}`,
    `version    ${current.version}${current.modified ? ` (${isoSeconds(current.modified)})` : ''}`,
    `chain      ${reading.ok ? (inForce?.chain ?? '(none of its own: the next source applies)') : current.chain}`,
  ];
  if (inForce?.chain !== undefined)
    lines.push(`tiers      ${parsed.tiers.length > 0 ? tiersLine(parsed) : '(no model)'}`);
  if (reading.ok) lines.push(...overrideDetail(c, reading.document));
  printLines(c.io, lines);
  if (!reading.ok) {
    c.io.stderr(`note: ${reading.problem}; the gateway skips this override\n`);
    return EXIT_OK;
  }
  if (inForce?.chain === undefined) return EXIT_OK;
  printWarnings(c.io, parsed);
  if (parsed.tiers.length === 0)
    c.io.stderr(
      'note: this override resolves to no model here; the gateway skips it and uses the config chain\n',
    );
  return EXIT_OK;
}

/** `chain get`'s lines about a timed override (in force or ended) and a canary. */
function overrideDetail(c: ChainContext, document: OverrideDocument): string[] {
  const { timed, canary } = document;
  const next =
    document.chain ?? `the next source (config: ${c.catalog.config.pipelines[c.pipeline]?.chain ?? 'none'})`;
  const lines: string[] = [];
  if (timed && timedInForce(document, c.now())) {
    const pin = timed.pin ? ' (a pin: breaker openings of its routes are ignored)' : '';
    lines.push(`until      ${timed.until}${pin}`, `then       ${next}`);
  } else if (timed) {
    lines.push(`ended      the timed override of ${timed.chain} ended at ${timed.until}`);
  }
  if (canary && !(timed && timedInForce(document, c.now())))
    lines.push(
      `canary     ${canary.percent} % of requests on ${canary.chain} since ${canary.since}; the rest on the chain above${canary.autoAbort ? ' (auto-abort)' : ''}`,
    );
  return lines;
}

/** Whether this override is what the gateway routes by, by the same rule the gateway uses. */
async function overrideStanding(c: ChainContext, parameter: string, chain: string): Promise<string> {
  if (!c.catalog.hasPipeline(c.pipeline))
    return `none: the config has no pipeline ${c.pipeline}, so the gateway does not route it`;
  const { effective } = await resolvePipelineSource(
    c.pipeline,
    c.catalog,
    c.io.env,
    { parameter, chain },
    c.now(),
  );
  switch (effective?.source) {
    case 'ssm':
      return 'ssm: this operator override is in force';
    case 'env':
      return `env: ${envVarName(c.pipeline)} in this environment wins over this override`;
    default:
      return overrideAt(documentOrEmpty(chain), c.now()).chain === undefined
        ? 'config: this override has no chain in force of its own, so the next source applies'
        : 'config: this override resolves to no model, so the gateway skips it';
  }
}

async function setChain(c: ChainContext, chain: string, flags: OverrideFlags): Promise<number> {
  const text = chain.trim();
  const parsed = checkOverrideChain(c.catalog, c.pipeline, text);
  printWarnings(c.io, parsed);
  if (!c.catalog.hasPipeline(c.pipeline) && !c.force) {
    c.io.stderr(
      `switchyard chain: unknown pipeline '${c.pipeline}' (${known(c.catalog)}); pass --force to write it anyway\n`,
    );
    return EXIT_BAD_INPUT;
  }
  if (wantsOverride(flags)) return setOverride(c, text, flags);
  const result = await chainActions(c).setPlain(c.pipeline, text, byCli('set'));
  printLines(c.io, [
    `pipeline ${c.pipeline} now routes on: ${text}`,
    `tiers: ${tiersLine(parsed)}`,
    `written ${c.store.parameterName(c.pipeline)} version ${result.version}; ${pickedUp(c)}`,
    ...(result.ended
      ? [`this ends the timed override of ${result.ended.chain} that ran until ${result.ended.until}`]
      : []),
  ]);
  return EXIT_OK;
}

/** The override document of a raw value; an unreadable one as empty. */
function documentOrEmpty(raw: string): OverrideDocument {
  const reading = readOverride(raw);
  return reading.ok ? reading.document : {};
}
