import { type CanaryOverride, type OverrideDocument, writeOverride } from '../core/catalog/chain-override.js';
import { envVarName } from '../core/catalog/chain-sources.js';
import { applyChange, changeOf, type OverrideChange, storedDocument } from '../overrides/override-changes.js';
import { OverrideRefusedError } from '../overrides/override-refused-error.js';
import { CLI_NAMES } from '../overrides/override-time.js';
import { byCli, type ChainContext, chainActions, pickedUp } from './chain-context.js';
import { CliUsageError, EXIT_OK } from './cli-io.js';
import { ssmCall } from './ssm-cli-support.js';

/** The flags of `chain set` that make a timed override, a pin or a canary (docs/operations.md#timed-overrides-pins-and-canaries). */
export interface OverrideFlags {
  for?: string | undefined;
  until?: string | undefined;
  pin: boolean;
  canary?: string | undefined;
  /** Print the `MODEL_<P>` value instead of writing SSM. */
  env: boolean;
  /** With `canary`: each container stops the canary when it fails. */
  autoAbort: boolean;
}

export function wantsOverride(flags: OverrideFlags): boolean {
  return (
    flags.for !== undefined ||
    flags.until !== undefined ||
    flags.pin ||
    flags.canary !== undefined ||
    flags.env ||
    flags.autoAbort
  );
}

/** The override document of the raw value, or a refusal telling how to start over. */
function documentOf(c: ChainContext, raw: string | undefined): OverrideDocument {
  return storedDocument(c.pipeline, raw);
}

/** `chain set` with `--for`/`--until` (and `--pin`) or `--canary`: writes the document, or prints it with `--env`. */
export async function setOverride(c: ChainContext, chain: string, flags: OverrideFlags): Promise<number> {
  if (flags.env) {
    const now = c.now();
    return printEnvOverride(c, changeOf(chain, flags, now), now);
  }
  const result = await chainActions(c).change(c.pipeline, chain, flags, byCli('set'), CLI_NAMES);
  const next = result.document ?? {};
  const written = `written ${c.store.parameterName(c.pipeline)} version ${result.version}; ${pickedUp(c)}`;
  c.io.stdout(`${[...changeLines(c, next), written].join('\n')}\n`);
  return EXIT_OK;
}

/** What the pipeline does from now on, in words. */
function changeLines(c: ChainContext, next: OverrideDocument): string[] {
  const after = next.chain ?? `its config chain (${c.catalog.config.pipelines[c.pipeline]?.chain ?? 'none'})`;
  if (next.timed) {
    const pin = next.timed.pin ? '; pinned: breaker openings of its routes are ignored' : '';
    return [
      `pipeline ${c.pipeline} routes on: ${next.timed.chain} until ${next.timed.until}${pin}`,
      `then it returns by itself to: ${after}`,
    ];
  }
  const canary = next.canary as CanaryOverride;
  return [
    `pipeline ${c.pipeline} sends ${canary.percent} % of its requests to the canary: ${canary.chain}`,
    `the rest stays on: ${after}`,
    ...(canary.autoAbort
      ? [
          "auto-abort: each container sends every request to the stable chain once the canary's failure rate reaches the breaker threshold",
        ]
      : []),
    `finish with: switchyard chain promote ${c.pipeline}  or  switchyard chain abort ${c.pipeline}`,
  ];
}

/** `--env`: the `MODEL_<P>` value to export, on top of the chain that variable holds in this environment. */
function printEnvOverride(c: ChainContext, change: OverrideChange, now: number): number {
  const name = envVarName(c.pipeline);
  const current = documentOf(c, c.io.env[name]?.trim() || undefined);
  const value = writeOverride(applyChange(current, change, now, c.pipeline)) ?? '';
  c.io.stdout(`${name}='${value.replaceAll("'", "'\\''")}'\n`);
  c.io.stderr(
    `note: set it where the gateway runs (restart a local gateway; update the function's environment in AWS); nothing written to SSM\n`,
  );
  return EXIT_OK;
}

/** The running canary, or a usage error naming how to start one. */
async function runningCanary(c: ChainContext) {
  const name = c.store.parameterName(c.pipeline);
  const current = await ssmCall(`reading ${name}`, () => c.store.current(c.pipeline));
  const document = documentOf(c, current?.chain);
  if (!document.canary) throw noCanary(c);
  return { name, document, canary: document.canary };
}

function noCanary(c: ChainContext): CliUsageError {
  return new CliUsageError(
    `no canary is running on ${c.pipeline}; start one with: switchyard chain set ${c.pipeline} "<chain>" --canary 10`,
  );
}

/** A promote or an abort through the shared actions; "no canary" with the command that starts one. */
async function finishCanary(c: ChainContext, how: 'promote' | 'abort') {
  try {
    return await chainActions(c)[how](c.pipeline, byCli(how));
  } catch (error) {
    if (error instanceof OverrideRefusedError && error.message.startsWith('no canary is running'))
      throw noCanary(c);
    throw error;
  }
}

/** `chain promote`: the canary's chain becomes the override for every request. */
export async function promoteCanary(c: ChainContext): Promise<number> {
  const result = await finishCanary(c, 'promote');
  const lines = [
    `promoted the canary of ${c.pipeline}: every request now routes on: ${result.canary?.chain}`,
    `written ${c.store.parameterName(c.pipeline)} version ${result.version}; ${pickedUp(c)}`,
  ];
  c.io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

/** `chain abort`: every request returns to the stable chain; an override left empty is deleted. */
export async function abortCanary(c: ChainContext): Promise<number> {
  const result = await finishCanary(c, 'abort');
  const name = c.store.parameterName(c.pipeline);
  const canary = result.canary as CanaryOverride;
  const configChain = c.catalog.config.pipelines[c.pipeline]?.chain ?? 'none';
  const lines = [`aborted the canary of ${c.pipeline} (${canary.chain} at ${canary.percent} %)`];
  if (result.version === null) {
    lines.push(
      `every request routes on its config chain again: ${configChain}`,
      `deleted ${name}; ${pickedUp(c)}`,
    );
  } else {
    lines.push(
      `every request routes on: ${result.document?.chain}`,
      `written ${name} version ${result.version}; ${pickedUp(c)}`,
    );
  }
  c.io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

export { runningCanary };
