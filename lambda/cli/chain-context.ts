/**
 * What every `switchyard chain` action works with, and the lines they print alike: the pipeline's
 * standing when it has no override, how soon running containers see a write, a stored value.
 */
import type { SsmChainStore } from '../aws/ssm-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { envVarName } from '../core/catalog/chain-sources.js';
import type { ParsedChain } from '../core/dsl/types.js';
import type { ChainOverrideStore } from '../overrides/chain-override-store.js';
import {
  createOverrideActions,
  type DescribeChange,
  type OverrideActions,
} from '../overrides/override-actions.js';
import { shownOverride } from '../overrides/override-changes.js';
import { type CliIo, CliUsageError, EXIT_OK } from './cli-io.js';
import { ssmCall } from './ssm-cli-support.js';

/** What every `chain` action works with. */
export interface ChainContext {
  pipeline: string;
  catalog: Catalog;
  store: SsmChainStore;
  cacheSeconds: number;
  io: CliIo;
  force: boolean;
  /** Ms since epoch, from `io.clock` or the system's. */
  now(): number;
}

export function noOverride(c: ChainContext, detail = ''): number {
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

export function known(catalog: Catalog): string {
  return catalog.pipelines.length > 0 ? `configured: ${catalog.pipelines.join(', ')}` : 'none configured';
}

export function printLines(io: CliIo, lines: readonly string[]): void {
  io.stdout(`${lines.join('\n')}\n`);
}

export function pickedUp(c: ChainContext): string {
  return `running Lambda containers pick it up within ${c.cacheSeconds} s`;
}

export function printWarnings(io: CliIo, parsed: ParsedChain): void {
  for (const w of parsed.warnings) io.stderr(`warning: ${w.message}\n`);
}

/** `2025-06-01T12:00:00Z`: the second is as precise as an operator needs. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** A stored value for people: a plain chain as it is, a document in one line. */
export const shownValue = shownOverride;

/**
 * The shared override actions (`lambda/overrides/override-actions.ts`, which the operator console
 * runs too) on this command's store, each SSM call wrapped so a failure is one line naming what was
 * read, written or deleted; any pipeline name (`set` checks the config itself, with `--force`).
 */
export function chainActions(c: ChainContext): OverrideActions {
  const name = c.store.parameterName(c.pipeline);
  const store: ChainOverrideStore = {
    ...c.store,
    current: (p) => ssmCall(`reading ${name}`, () => c.store.current(p)),
    put: (p, chain, description) => ssmCall(`writing ${name}`, () => c.store.put(p, chain, description)),
    delete: (p) => ssmCall(`deleting ${name}`, () => c.store.delete(p)),
    rollback: (p, options) => ssmCall(`rolling back ${name}`, () => c.store.rollback(p, options)),
  };
  return createOverrideActions({ catalog: c.catalog, store, clock: { now: c.now }, anyPipeline: true });
}

/** The description `switchyard chain <command>` gives the version it writes. */
export const byCli =
  (command: string): DescribeChange =>
  (what) =>
    `${what}, by switchyard chain ${command}`;
