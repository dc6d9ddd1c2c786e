import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  CallerKeyConflictError,
  listCallerKeys,
  markAuthoritative,
  putCallerKey,
  revokeCallerKey,
} from '../aws/caller-key-admin.js';
import { readAuthoritative } from '../aws/caller-key-table.js';
import { readCallerKeysParameter } from '../aws/ssm-caller-keys.js';
import { sha256Hex } from '../http/caller-auth.js';
import { type CliIo, CliUsageError, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';
import { awsCall, DYNAMODB_SERVICE, ssmCall } from './ssm-cli-support.js';

/** The caller-keys table a `keys` command edits, and the SSM parameter it replaces. */
export interface KeysTable {
  documents: DynamoDBDocumentClient;
  tableName: string;
  ssm: SSMClient;
  /** `<prefix>/caller-keys`: the keys before the table. */
  parameter: string;
  /** Who acts, for the table's `meta` item: `switchyard keys <action>`. */
  by: string;
}

/** How long a container trusts what it read, as the messages say it (config `aws.callerKeyCacheMs`). */
const CACHE_NOTE = 'once the containers’ key caches expire (aws.callerKeyCacheMs, 30 s by default)';

/** One DynamoDB call of the CLI; failures become one line naming the table. */
export const tableCall = <T>(table: KeysTable, what: string, call: () => Promise<T>) =>
  awsCall(DYNAMODB_SERVICE, `${what} table ${table.tableName}`, call);

/** The keys still in the SSM parameter (none when it does not exist). */
export const legacyKeys = async (table: KeysTable) =>
  (await ssmCall(`reading ${table.parameter}`, () => readCallerKeysParameter(table.ssm, table.parameter)))
    .keys;

/** `keys add|issue <name> --table T`: a new key, printed once; only its SHA-256 is stored. */
export async function addToTable(
  io: CliIo,
  table: KeysTable,
  name: string,
  key: string,
  replace: boolean,
): Promise<number> {
  const hash = sha256Hex(key);
  let outcome: string;
  try {
    outcome = await tableCall(table, 'writing', () =>
      putCallerKey(
        table.documents,
        table.tableName,
        { name, hash, createdAt: new Date().toISOString() },
        { replace },
      ),
    );
  } catch (error) {
    if (error instanceof CallerKeyConflictError)
      throw new CliUsageError(`${error.message} (in ${table.tableName})`);
    throw error;
  }
  const lines = [
    `name    ${name}`,
    `key     ${key}`,
    `sha256  ${hash}`,
    '',
    `${outcome === 'added' ? `added '${name}' to` : `${outcome} '${name}' in`} table ${table.tableName}; the API accepts it at once (a container that was refused it just before: within aws.callerKeyMissCacheMs, 5 s by default)`,
  ];
  if (outcome === 'replaced') lines.push(`the old key of '${name}' stops working ${CACHE_NOTE}`);
  io.stdout(`${lines.join('\n')}\n`);
  io.stderr(
    'warning: the key is shown only this once and is stored nowhere; put it in your secret store now\n',
  );
  await settleAuthority(io, table);
  return EXIT_OK;
}

/** The table decides alone once the SSM parameter holds no key that is not migrated yet. */
async function settleAuthority(io: CliIo, table: KeysTable): Promise<void> {
  if (await tableCall(table, 'reading', () => readAuthoritative(table.documents, table.tableName))) return;
  const waiting = Object.keys(await legacyKeys(table)).length;
  if (waiting === 0) {
    await tableCall(table, 'writing', () =>
      markAuthoritative(table.documents, table.tableName, table.by, new Date().toISOString()),
    );
    return;
  }
  io.stderr(
    `warning: ${waiting} caller key(s) are still only in ${table.parameter}; run 'switchyard keys migrate --apply' so the table alone decides\n`,
  );
}

/** `keys revoke <name> --table T`. */
export async function revokeFromTable(io: CliIo, table: KeysTable, name: string): Promise<number> {
  const removed = await tableCall(table, 'writing', () =>
    revokeCallerKey(table.documents, table.tableName, name),
  );
  if (!removed) {
    const names = (
      await tableCall(table, 'reading', () => listCallerKeys(table.documents, table.tableName))
    ).map((k) => k.name);
    throw new CliUsageError(
      `no key '${name}' in table ${table.tableName} (${names.length > 0 ? `keys: ${names.join(', ')}` : 'it holds no keys'})`,
    );
  }
  io.stdout(
    `revoked '${name}' (sha256 ${removed.hash.slice(0, 8)}…) in table ${table.tableName}; the API refuses it ${CACHE_NOTE}\n`,
  );
  const authoritative = await tableCall(table, 'reading', () =>
    readAuthoritative(table.documents, table.tableName),
  );
  if (!authoritative && Object.hasOwn(await legacyKeys(table), name))
    io.stderr(
      `warning: '${name}' is also in ${table.parameter}, which the API still reads until 'switchyard keys migrate --apply'; revoke it there too: switchyard keys revoke ${name} --ssm\n`,
    );
  return EXIT_OK;
}

/** `keys list --table T`: names, hash prefixes and dates; never a key. */
export async function listTable(io: CliIo, table: KeysTable): Promise<number> {
  const keys = await tableCall(table, 'reading', () => listCallerKeys(table.documents, table.tableName));
  if (keys.length === 0) {
    io.stdout(`no caller keys in table ${table.tableName}; the API refuses every caller\n`);
    return EXIT_OK;
  }
  const rows = keys.map((k) => [k.name, k.hash.slice(0, 8), k.createdAt ?? '-']);
  io.stdout(`table ${table.tableName}\n\n${formatTable(['NAME', 'SHA-256', 'ADDED'], rows)}\n`);
  return EXIT_OK;
}
