/**
 * `switchyard chain history | rollback | clear`: the override's past in SSM, restoring a version of
 * it, and deleting it (which SSM does with its history).
 */
import { envVarName } from '../core/catalog/chain-sources.js';
import { readChangeNote } from '../overrides/change-note.js';
import { OverrideRefusedError } from '../overrides/override-refused-error.js';
import {
  byCli,
  type ChainContext,
  chainActions,
  isoSeconds,
  noOverride,
  pickedUp,
  printLines,
  shownValue,
} from './chain-context.js';
import { CliUsageError, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';
import { ssmCall } from './ssm-cli-support.js';

/** SSM's DeleteParameter takes the parameter's history with it; `history` and `rollback` say so. */
const HISTORY_GONE = 'a cleared override leaves no history: SSM deletes it with the parameter';

export async function showHistory(c: ChainContext): Promise<number> {
  const name = c.store.parameterName(c.pipeline);
  const versions = await ssmCall(`reading the history of ${name}`, () => c.store.history(c.pipeline));
  if (versions.length === 0) return noOverride(c, ` (${HISTORY_GONE})`);
  // A console change names the operator key and the reason; SSM's own writer is then the API's role.
  const notes = versions.map((v) => readChangeNote(v.description));
  const withWhy = notes.some((n) => n !== undefined);
  const rows = versions.map((v, i) => {
    const note = notes[i];
    const row = [
      String(v.version),
      v.modified ? isoSeconds(v.modified) : '?',
      note ? `${note.who} (console)` : shortPrincipal(v.by),
      shownValue(v.chain),
    ];
    return withWhy ? [...row, note?.why ?? ''] : row;
  });
  const head = ['VERSION', 'MODIFIED', 'BY', 'CHAIN', ...(withWhy ? ['WHY'] : [])];
  c.io.stdout(`${name} (newest first)\n\n${formatTable(head, rows)}\n`);
  return EXIT_OK;
}

export async function rollback(c: ChainContext, to: string | undefined): Promise<number> {
  const toVersion = to === undefined ? undefined : Number(to);
  if (toVersion !== undefined && !(Number.isInteger(toVersion) && toVersion > 0))
    throw new CliUsageError(`--to must be a version number, not '${to}'`);
  const name = c.store.parameterName(c.pipeline);
  try {
    const result = await chainActions(c).rollback(c.pipeline, toVersion, byCli('rollback'), {
      force: c.force,
    });
    for (const warning of result.warnings) c.io.stderr(`warning: ${warning}\n`);
    printLines(c.io, [
      `pipeline ${c.pipeline} now routes on: ${shownValue(result.to.chain)}`,
      `restored version ${result.to.version} over version ${result.from.version} (${shownValue(result.from.chain)})`,
      `written ${name} version ${result.version}; ${pickedUp(c)}`,
    ]);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof OverrideRefusedError) {
      const hint = error.message.includes(': no SSM override')
        ? ` (${HISTORY_GONE})`
        : error.message.endsWith('resolves to no model in this catalog')
          ? '; pass --force to restore it anyway'
          : '';
      throw new CliUsageError(`${error.message}${hint}`);
    }
    throw error;
  }
}

export async function clearChain(c: ChainContext): Promise<number> {
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
    `cleared the operator override of ${c.pipeline} (was: ${shownValue(current.chain)}, version ${current.version})`,
    now,
    `deleted ${name}; ${pickedUp(c)}`,
    `SSM deleted the override's history with it; to restore it: ${restoreCommand(c, name, current.chain)}`,
  ]);
  const envName = envVarName(c.pipeline);
  if (c.io.env[envName]?.trim())
    c.io.stderr(
      `note: ${envName} is set in this environment; wherever it is set, it wins over the config chain\n`,
    );
  return EXIT_OK;
}

/** A plain chain comes back with `chain set`; a document (a timed override, a canary) with the AWS CLI, as it was. */
function restoreCommand(c: ChainContext, parameter: string, raw: string): string {
  if (!raw.trim().startsWith('{')) return `switchyard chain set ${c.pipeline} "${raw}"`;
  return `aws ssm put-parameter --name ${parameter} --type String --overwrite --value '${raw.replaceAll("'", "'\\''")}'`;
}

/** `arn:aws:sts::123456789012:assumed-role/Ops/alice` → `assumed-role/Ops/alice`. */
function shortPrincipal(arn: string | undefined): string {
  if (!arn) return '?';
  const parts = arn.split(':');
  return parts.length >= 6 ? parts.slice(5).join(':') : arn;
}
