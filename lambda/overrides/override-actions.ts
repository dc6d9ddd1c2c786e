/**
 * The operator console's changes to a pipeline's override (docs/operations.md#the-operator-console):
 * set a chain, a timed override or a pin, start, promote or abort a canary, clear, roll back. Each
 * is checked by the same rules as `switchyard chain` (`override-changes.ts`, the catalog's own
 * parser) before anything is written, and each version written carries who and why.
 */
import { type ChainVersion, RollbackError } from '../aws/ssm-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import {
  type CanaryOverride,
  describeOverride,
  type OverrideDocument,
  type TimedOverride,
  timedInForce,
  writeOverride,
} from '../core/catalog/chain-override.js';
import type { Clock } from '../core/time.js';
import type { ChainOverrideStore } from './chain-override-store.js';
import { type ChangeAuthor, writeChangeNote } from './change-note.js';
import {
  applyChange,
  type ChangeRequest,
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
  /** The override document in force after the change (`{}` when it was deleted). */
  document?: OverrideDocument | undefined;
  /** A plain set ended this timed override. */
  ended?: TimedOverride | undefined;
  /** The canary a promote or an abort finished. */
  canary?: CanaryOverride | undefined;
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

/** The description of the version a change writes, from what it does: who and why (console), or the CLI's words. */
export type DescribeChange = (what: string) => string;

/** The description the console writes: what, the operator key's name and the reason. */
export const byOperator =
  (author: ChangeAuthor): DescribeChange =>
  (what) =>
    writeChangeNote(what, author);

/**
 * The changes to a pipeline's override, on one store: the console's endpoints and `switchyard
 * chain set/promote/abort` both run them. Every refusal is an {@link OverrideRefusedError}; store
 * failures propagate. `anyPipeline`: also a pipeline the config does not have (the CLI checks that
 * itself, with `--force`); default false.
 */
export function createOverrideActions(deps: OverrideActionsDeps & { anyPipeline?: boolean | undefined }) {
  const { catalog, store } = deps;
  const known = (pipeline: string) => {
    if (!deps.anyPipeline && !catalog.hasPipeline(pipeline))
      throw new OverrideRefusedError(`the config has no pipeline '${pipeline}'`, { conflict: false });
  };
  const current = async (pipeline: string) => (await store.current(pipeline))?.chain;
  const warnings = (chain: string) => catalog.parse(chain).warnings.map((w) => w.message);

  /** A timed override, a pin or a canary over what is stored. */
  const change = async (
    pipeline: string,
    chain: string,
    request: ChangeRequest,
    describe: DescribeChange,
    names: OverrideInputNames,
  ): Promise<ChangeResult> => {
    const now = deps.clock.now();
    const asked = changeOf(chain, request, now, names);
    const document = applyChange(storedDocument(pipeline, await current(pipeline)), asked, now, pipeline);
    const value = writeOverride(document) ?? chain;
    const verb = 'canary' in asked ? 'start' : 'set';
    const version = await store.put(pipeline, value, describe(`${verb} ${describeOverride(document)}`));
    return {
      done: `${pipeline}: ${describeOverride(document)}`,
      version,
      warnings: warnings(chain),
      document,
    };
  };

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

    /** A plain override; it ends a timed override in force (`ended`), and is refused while a canary runs. */
    async setPlain(pipeline: string, chain: string, describe: DescribeChange): Promise<ChangeResult> {
      known(pipeline);
      const text = chain.trim();
      checkOverrideChain(catalog, pipeline, text);
      const document = storedDocument(pipeline, await current(pipeline));
      refuseOverCanary(pipeline, document);
      const ended = document.timed && timedInForce(document, deps.clock.now()) ? document.timed : undefined;
      const version = await store.put(pipeline, text, describe(`set ${text}`));
      const ending = ended
        ? `; this ends the timed override of ${ended.chain} that ran until ${ended.until}`
        : '';
      return {
        done: `${pipeline} routes on ${text}${ending}`,
        version,
        warnings: warnings(text),
        document: { chain: text },
        ended,
      };
    },

    /** A timed override, a pin or a canary as `request` asks (the CLI's flags), named by `names` in refusals. */
    async change(
      pipeline: string,
      chain: string,
      request: ChangeRequest,
      describe: DescribeChange,
      names: OverrideInputNames,
    ): Promise<ChangeResult> {
      known(pipeline);
      checkOverrideChain(catalog, pipeline, chain);
      return change(pipeline, chain.trim(), request, describe, names);
    },

    /** The console's set: plain, or with `for`/`until` a timed override (and with `pin` a pin). */
    async set(pipeline: string, input: SetInput, author: ChangeAuthor): Promise<ChangeResult> {
      const timed = input.for !== undefined || input.until !== undefined || input.pin;
      if (!timed) return this.setPlain(pipeline, input.chain, byOperator(author));
      return this.change(
        pipeline,
        input.chain,
        { ...input, autoAbort: false },
        byOperator(author),
        CONSOLE_NAMES,
      );
    },

    /** The console's canary: `percent` % of the requests on `chain`. */
    async canary(pipeline: string, input: CanaryInput, author: ChangeAuthor): Promise<ChangeResult> {
      const request = { canary: String(input.percent), pin: false, autoAbort: input.autoAbort };
      return this.change(pipeline, input.chain, request, byOperator(author), CONSOLE_NAMES);
    },

    /** The canary's chain becomes the override for every request. */
    async promote(pipeline: string, describe: DescribeChange): Promise<ChangeResult> {
      known(pipeline);
      const { canary } = runningCanary(pipeline, storedDocument(pipeline, await current(pipeline)));
      const version = await store.put(pipeline, canary.chain, describe(`promote the canary ${canary.chain}`));
      return {
        done: `${pipeline} routes every request on ${canary.chain}`,
        version,
        warnings: warnings(canary.chain),
        document: { chain: canary.chain },
        canary,
      };
    },

    /** Every request returns to the stable chain; an override left empty is deleted (`version` null). */
    async abort(pipeline: string, describe: DescribeChange): Promise<ChangeResult> {
      known(pipeline);
      const document = storedDocument(pipeline, await current(pipeline));
      const { canary } = runningCanary(pipeline, document);
      const stable = writeOverride(document.chain ? { chain: document.chain } : {});
      if (stable === undefined) {
        await store.delete(pipeline);
        const done = `aborted the canary ${canary.chain}; ${pipeline} routes on its config chain`;
        return { done, version: null, warnings: [], document: {}, canary };
      }
      const version = await store.put(pipeline, stable, describe(`abort the canary ${canary.chain}`));
      return {
        done: `aborted the canary ${canary.chain}; ${pipeline} routes on ${stable}`,
        version,
        warnings: [],
        document: { chain: stable },
        canary,
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

    /**
     * Writes the previous different value (or version `toVersion`'s) as a new version. A target that
     * resolves to no model in this catalog is refused unless `force`. `to` and `from` in the result.
     */
    async rollback(
      pipeline: string,
      toVersion: number | undefined,
      describe: DescribeChange,
      options: { force?: boolean } = {},
    ): Promise<ChangeResult & { to: ChainVersion; from: ChainVersion }> {
      known(pipeline);
      const check = (target: ChainVersion) => {
        for (const chain of chainsOf(target.chain))
          if (catalog.parse(chain).tiers.length === 0 && !options.force)
            throw new RollbackError(
              `version ${target.version} ('${shownOverride(target.chain)}') resolves to no model in this catalog`,
            );
      };
      try {
        const result = await store.rollback(pipeline, {
          toVersion,
          check,
          description: (to) => describe(`roll back to version ${to.version} (${shownOverride(to.chain)})`),
        });
        return {
          done: `${pipeline} routes on ${shownOverride(result.to.chain)} again (version ${result.to.version})`,
          version: result.version,
          warnings: chainsOf(result.to.chain).flatMap(warnings),
          to: result.to,
          from: result.from,
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
