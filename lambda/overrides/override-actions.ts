/**
 * The operator console's changes to a pipeline's override (docs/operations.md#the-operator-console):
 * set a chain, a timed override or a pin, start, promote or abort a canary, clear, roll back. Each
 * is checked by the same rules as `switchyard chain` (`override-changes.ts`, the catalog's own
 * parser) before anything is written, and each version written carries who and why.
 */
import { type ChainVersion, RollbackError } from '../aws/ssm-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { describeOverride, timedInForce, writeOverride } from '../core/catalog/chain-override.js';
import type { Clock } from '../core/time.js';
import type { ChainOverrideStore } from './chain-override-store.js';
import { type ChangeAuthor, writeChangeNote } from './change-note.js';
import {
  applyChange,
  chainsOf,
  changeOf,
  checkOverrideChain,
  refuseOverCanary,
  shownOverride,
  storedDocument,
} from './override-changes.js';
import { OverrideRefusedError } from './override-refused-error.js';
import type { OverrideInputNames } from './override-time.js';

/** The console's JSON fields, named in its refusals. */
export const CONSOLE_NAMES: OverrideInputNames = {
  for: 'for',
  until: 'until',
  canary: 'percent',
  pin: 'pin',
  autoAbort: 'autoAbort',
  env: 'for',
};

/** What a change did, in words, and the version written (null when the override was deleted). */
export interface ChangeResult {
  done: string;
  version: number | null;
  /** The parser's warnings for the chain written. */
  warnings: string[];
}

export interface OverrideActionsDeps {
  catalog: Catalog;
  store: ChainOverrideStore;
  clock: Clock;
}

/** A chain, and optionally an end (`for` a duration, or `until` an instant) and a pin. */
export interface SetInput {
  chain: string;
  for?: string | undefined;
  until?: string | undefined;
  pin: boolean;
}

export interface CanaryInput {
  chain: string;
  /** Share of requests, in %: more than 0, less than 100. */
  percent: number;
  autoAbort: boolean;
}

/** The console's actions on one store. Every refusal is an {@link OverrideRefusedError}; store failures propagate. */
export function createOverrideActions(deps: OverrideActionsDeps) {
  const { catalog, store } = deps;
  const known = (pipeline: string) => {
    if (!catalog.hasPipeline(pipeline))
      throw new OverrideRefusedError(`the config has no pipeline '${pipeline}'`, { conflict: false });
  };
  const current = async (pipeline: string) => (await store.current(pipeline))?.chain;
  const warnings = (chain: string) => catalog.parse(chain).warnings.map((w) => w.message);

  return {
    /** The chain parsed for `pipeline`, with its warnings; refused when it cannot stand. Writes nothing. */
    check(pipeline: string, chain: string) {
      known(pipeline);
      const parsed = checkOverrideChain(catalog, pipeline, chain);
      return {
        chain: chain.trim(),
        tiers: parsed.tiers.map((t) => t.members.map((m) => m.key)),
        warnings: parsed.warnings.map((w) => w.message),
      };
    },

    /** A plain override, or with `for`/`until` a timed one (and with `pin` a pin). */
    async set(pipeline: string, input: SetInput, author: ChangeAuthor): Promise<ChangeResult> {
      known(pipeline);
      const chain = input.chain.trim();
      checkOverrideChain(catalog, pipeline, chain);
      const now = deps.clock.now();
      const document = storedDocument(pipeline, await current(pipeline));
      const timed = input.for !== undefined || input.until !== undefined || input.pin;
      let value = chain;
      let done = `${pipeline} routes on ${chain}`;
      if (timed) {
        const change = changeOf(chain, { ...input, autoAbort: false }, now, CONSOLE_NAMES);
        const next = applyChange(document, change, now, pipeline);
        value = writeOverride(next) ?? chain;
        done = `${pipeline}: ${describeOverride(next)}`;
      } else {
        refuseOverCanary(pipeline, document);
        if (document.timed && timedInForce(document, now))
          done += `; this ends the timed override of ${document.timed.chain} that ran until ${document.timed.until}`;
      }
      const version = await store.put(
        pipeline,
        value,
        writeChangeNote(`set ${shownOverride(value)}`, author),
      );
      return { done, version, warnings: warnings(chain) };
    },

    async canary(pipeline: string, input: CanaryInput, author: ChangeAuthor): Promise<ChangeResult> {
      known(pipeline);
      const chain = input.chain.trim();
      checkOverrideChain(catalog, pipeline, chain);
      const now = deps.clock.now();
      const document = storedDocument(pipeline, await current(pipeline));
      const change = changeOf(
        chain,
        { canary: String(input.percent), pin: false, autoAbort: input.autoAbort },
        now,
        CONSOLE_NAMES,
      );
      const next = applyChange(document, change, now, pipeline);
      const value = writeOverride(next) ?? chain;
      const version = await store.put(
        pipeline,
        value,
        writeChangeNote(`start ${describeOverride(next)}`, author),
      );
      return { done: `${pipeline}: ${describeOverride(next)}`, version, warnings: warnings(chain) };
    },

    /** The canary's chain becomes the override for every request. */
    async promote(pipeline: string, author: ChangeAuthor): Promise<ChangeResult> {
      known(pipeline);
      const { canary } = runningCanary(pipeline, storedDocument(pipeline, await current(pipeline)));
      const version = await store.put(
        pipeline,
        canary.chain,
        writeChangeNote(`promote the canary ${canary.chain}`, author),
      );
      return {
        done: `${pipeline} routes every request on ${canary.chain}`,
        version,
        warnings: warnings(canary.chain),
      };
    },

    /** Every request returns to the stable chain; an override left empty is deleted. */
    async abort(pipeline: string, author: ChangeAuthor): Promise<ChangeResult> {
      known(pipeline);
      const document = storedDocument(pipeline, await current(pipeline));
      const { canary } = runningCanary(pipeline, document);
      const stable = writeOverride(document.chain ? { chain: document.chain } : {});
      if (stable === undefined) {
        await store.delete(pipeline);
        return {
          done: `aborted the canary ${canary.chain}; ${pipeline} routes on its config chain`,
          version: null,
          warnings: [],
        };
      }
      const version = await store.put(
        pipeline,
        stable,
        writeChangeNote(`abort the canary ${canary.chain}`, author),
      );
      return {
        done: `aborted the canary ${canary.chain}; ${pipeline} routes on ${stable}`,
        version,
        warnings: [],
      };
    },

    /** Deletes the override (and, as SSM does, its history): the pipeline returns to its config chain. */
    async clear(pipeline: string): Promise<ChangeResult> {
      known(pipeline);
      const was = await current(pipeline);
      if (was === undefined || !(await store.delete(pipeline)))
        throw new OverrideRefusedError(`${pipeline} has no override to clear`, { conflict: true });
      return {
        done: `cleared ${shownOverride(was)}; ${pipeline} routes on its config chain ${catalog.config.pipelines[pipeline]?.chain ?? ''}`.trimEnd(),
        version: null,
        warnings: [],
      };
    },

    /** Writes the previous different value (or version `toVersion`'s) as a new version. */
    async rollback(
      pipeline: string,
      toVersion: number | undefined,
      author: ChangeAuthor,
    ): Promise<ChangeResult> {
      known(pipeline);
      const check = (target: ChainVersion) => {
        for (const chain of chainsOf(target.chain))
          if (catalog.parse(chain).tiers.length === 0)
            throw new RollbackError(
              `version ${target.version} ('${shownOverride(target.chain)}') resolves to no model in this catalog`,
            );
      };
      try {
        const result = await store.rollback(pipeline, {
          toVersion,
          check,
          description: (to) =>
            writeChangeNote(`roll back to version ${to.version} (${shownOverride(to.chain)})`, author),
        });
        return {
          done: `${pipeline} routes on ${shownOverride(result.to.chain)} again (version ${result.to.version})`,
          version: result.version,
          warnings: chainsOf(result.to.chain).flatMap(warnings),
        };
      } catch (error) {
        if (error instanceof RollbackError)
          throw new OverrideRefusedError(`cannot roll back ${pipeline}: ${error.message}`, {
            conflict: true,
          });
        throw error;
      }
    },
  };
}

export type OverrideActions = ReturnType<typeof createOverrideActions>;

function runningCanary(pipeline: string, document: ReturnType<typeof storedDocument>) {
  if (!document.canary)
    throw new OverrideRefusedError(`no canary is running on ${pipeline}`, { conflict: true });
  return { canary: document.canary };
}
