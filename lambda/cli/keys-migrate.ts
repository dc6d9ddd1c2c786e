import { getCallerKey, markAuthoritative, putCallerKey } from '../aws/caller-key-admin.js';
import { readAuthoritative } from '../aws/caller-key-table.js';
import { type CliIo, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';
import { type KeysTable, legacyKeys, tableCall } from './keys-table-command.js';

/** Exit status when some key could not be moved (a name the table holds with another key). */
export const EXIT_MIGRATE_CONFLICT = 1;

type Plan = 'copy' | 'already there' | 'conflict';

/**
 * `keys migrate --table T [--apply]`: copies every key of the SSM parameter `<prefix>/caller-keys`
 * into the table (its SHA-256 as stored; a key was never stored). A dry run by default: it prints
 * what it would move and writes nothing. With `--apply` it copies, then writes the table's `meta`
 * item, after which the API no longer consults the parameter. Idempotent: a key already there is
 * left alone. A name the table holds with another hash is a conflict: it is not moved, `meta` is
 * not written (that key would stop working), and the exit status is 1.
 */
export async function migrateKeys(io: CliIo, table: KeysTable, apply: boolean): Promise<number> {
  const legacy = await legacyKeys(table);
  const plans: [string, string, Plan][] = [];
  for (const [name, hash] of Object.entries(legacy).sort(([a], [b]) => a.localeCompare(b))) {
    const held = await tableCall(table, 'reading', () =>
      getCallerKey(table.documents, table.tableName, name),
    );
    plans.push([name, hash, held === undefined ? 'copy' : held.hash === hash ? 'already there' : 'conflict']);
  }
  const authoritative = await tableCall(table, 'reading', () =>
    readAuthoritative(table.documents, table.tableName),
  );
  const count = (plan: Plan) => plans.filter(([, , p]) => p === plan).length;
  const lines = [`from ${table.parameter} (${plans.length} keys) to table ${table.tableName}`, ''];
  if (plans.length > 0) {
    const done = (plan: Plan) => (apply && plan === 'copy' ? 'copied' : plan);
    lines.push(
      formatTable(
        ['NAME', 'SHA-256', apply ? 'DONE' : 'PLAN'],
        plans.map(([n, h, p]) => [n, h.slice(0, 8), done(p)]),
      ),
      '',
    );
  }
  const conflicts = count('conflict');
  if (!apply) {
    lines.push(
      `dry run: nothing written. ${count('copy')} to copy, ${count('already there')} already there, ${conflicts} in conflict; ${authoritative ? 'the table already decides alone' : 'then the table decides alone (meta item)'}`,
      'run again with --apply to do it',
    );
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT_OK;
  }
  const at = new Date().toISOString();
  for (const [name, hash, plan] of plans) {
    if (plan === 'copy')
      await tableCall(table, 'writing', () =>
        putCallerKey(table.documents, table.tableName, { name, hash, createdAt: at }),
      );
  }
  if (conflicts > 0) {
    lines.push(
      `copied ${count('copy')}; ${conflicts} not moved: the table holds another key under that name. ${authoritative ? 'The table already decides alone, so those SSM keys no longer work.' : `The table does not decide alone yet (the API still reads ${table.parameter} on a miss).`} Revoke or rename one of each pair, then run migrate --apply again.`,
    );
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT_MIGRATE_CONFLICT;
  }
  const marked = await tableCall(table, 'writing', () =>
    markAuthoritative(table.documents, table.tableName, table.by, at),
  );
  lines.push(
    `copied ${count('copy')}, ${count('already there')} already there. ${marked ? 'The table now decides alone (meta item written)' : 'The table already decided alone'}: the API no longer reads ${table.parameter}.`,
    `the parameter is no longer needed; delete it when you like: aws ssm delete-parameter --name ${table.parameter}`,
  );
  io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
