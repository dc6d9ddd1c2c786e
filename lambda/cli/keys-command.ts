import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { createDocumentClient } from '../aws/dynamodb-client.js';
import {
  type CallerKeys,
  callerKeysParameterName,
  readCallerKeysParameter,
  writeCallerKeysParameter,
} from '../aws/ssm-caller-keys.js';
import { resolveSsmPrefix } from '../aws/ssm-chains.js';
import { loadConfig } from '../config/config-file.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { sha256Hex } from '../http/caller-auth.js';
import { type CliIo, CliUsageError, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';
import { migrateKeys } from './keys-migrate.js';
import { addToTable, type KeysTable, listTable, revokeFromTable } from './keys-table-command.js';
import { createCliDynamoDbClient, createCliSsmClient, ssmCall } from './ssm-cli-support.js';

export const KEYS_USAGE = [
  'usage: switchyard keys add <name> [--table T | --ssm] [--replace]',
  '       switchyard keys issue <name> [--table T | --ssm] [--replace]   (the same as add)',
  '       switchyard keys revoke <name> (--table T | --ssm)',
  '       switchyard keys list [--table T | --ssm]',
  '       switchyard keys migrate --table T [--apply]',
  "every form takes --config FILE. --table (or SWITCHYARD_KEYS_TABLE) is the stack's caller-keys table",
  '(output CallerKeysTableName); --ssm is the older <prefix>/caller-keys parameter; neither: the config file',
].join('\n');

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** The same rule as `auth.keys` in the config. */
const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A new caller key: `sy-` and 32 random bytes in base64url (256 bits; 46 characters). */
export function generateCallerKey(): string {
  return `sy-${randomBytes(32).toString('base64url')}`;
}

interface SsmKeys {
  client: SSMClient;
  parameter: string;
}

/**
 * `switchyard keys`: adds (issues), revokes and lists caller keys, and migrates the SSM parameter's
 * keys into the caller-keys table. A key is printed once, at issue; only its SHA-256 is stored (in
 * the caller-keys table with `--table`, in the config's `auth.keys`, or with `--ssm` in
 * `<prefix>/caller-keys`).
 */
export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      ssm: { type: 'boolean', default: false },
      table: { type: 'string' },
      replace: { type: 'boolean', default: false },
      apply: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const [action, name, ...rest] = positionals;
  const nameless = action === 'list' || action === 'migrate';
  if (!action || rest.length > 0 || nameless !== (name === undefined)) throw new CliUsageError(KEYS_USAGE);
  if (name !== undefined && !KEY_NAME.test(name))
    throw new CliUsageError(`key name '${name}' must be 1-64 letters, digits or - _ .`);
  const tableName = values.ssm
    ? undefined
    : (values.table ?? io.env.SWITCHYARD_KEYS_TABLE?.trim()) || undefined;
  if (values.ssm && values.table !== undefined)
    throw new CliUsageError('--ssm and --table name two different stores: pass one');
  if (tableName !== undefined && !TABLE_NAME.test(tableName))
    throw new CliUsageError(
      `--table '${tableName}' must be a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -`,
    );
  if (values.apply && action !== 'migrate') throw new CliUsageError('--apply belongs to keys migrate');

  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const parameter = callerKeysParameterName(resolveSsmPrefix(config, io.env));
  const ssm: SsmKeys | undefined = values.ssm ? { client: createCliSsmClient(io.env), parameter } : undefined;
  if (tableName !== undefined) {
    const table: KeysTable = {
      documents: createDocumentClient(createCliDynamoDbClient(io.env)),
      tableName,
      ssm: createCliSsmClient(io.env),
      parameter,
      by: `switchyard keys ${action}`,
    };
    switch (action) {
      case 'add':
      case 'issue':
        return addToTable(io, table, name as string, generateCallerKey(), values.replace);
      case 'revoke':
        return revokeFromTable(io, table, name as string);
      case 'list':
        return listTable(io, table);
      case 'migrate':
        return migrateKeys(io, table, values.apply);
      default:
        throw new CliUsageError(`unknown action '${action}'\n${KEYS_USAGE}`);
    }
  }
  if (action === 'migrate')
    throw new CliUsageError(
      'keys migrate copies into the caller-keys table: pass --table <CallerKeysTableName output> or set SWITCHYARD_KEYS_TABLE',
    );

  switch (action) {
    case 'add':
    case 'issue':
      return issue(io, name as string, ssm, values.replace);
    case 'revoke':
      if (!ssm)
        throw new CliUsageError(
          `revoke works on the caller-keys table (--table) or SSM (--ssm); for the local gateway delete auth.keys.${name} from the config file`,
        );
      return revoke(io, name as string, ssm);
    case 'list':
      return list(io, config, ssm);
    default:
      throw new CliUsageError(`unknown action '${action}'\n${KEYS_USAGE}`);
  }
}

function readKeys(ssm: SsmKeys) {
  return ssmCall(`reading ${ssm.parameter}`, () => readCallerKeysParameter(ssm.client, ssm.parameter));
}

/**
 * SSM has no conditional put, so read-modify-write can lose a concurrent edit; the version number
 * tells: anything but the next one means someone else wrote in between.
 */
async function writeKeys(
  io: CliIo,
  ssm: SsmKeys,
  keys: CallerKeys,
  readVersion: number | undefined,
  why: string,
): Promise<number> {
  const version = await ssmCall(`writing ${ssm.parameter}`, () =>
    writeCallerKeysParameter(ssm.client, ssm.parameter, keys, why),
  );
  if (version !== (readVersion ?? 0) + 1) {
    io.stderr(
      `warning: ${ssm.parameter} changed while this command ran (read version ${readVersion ?? 'none'}, wrote ${version}); check it with 'switchyard keys list --ssm'\n`,
    );
  }
  return version;
}

async function issue(io: CliIo, name: string, ssm: SsmKeys | undefined, replace: boolean): Promise<number> {
  const before = ssm ? await readKeys(ssm) : undefined;
  if (before && Object.hasOwn(before.keys, name) && !replace) {
    throw new CliUsageError(
      `key '${name}' exists in ${ssm?.parameter}; pass --replace to replace it (the old key stops working)`,
    );
  }
  const key = generateCallerKey();
  const hash = sha256Hex(key);
  const lines: string[] = [];
  if (ssm && before) {
    const version = await writeKeys(
      io,
      ssm,
      { ...before.keys, [name]: hash },
      before.version,
      `caller keys; ${name} issued by switchyard keys issue`,
    );
    lines.push(
      `added '${name}' to ${ssm.parameter} (version ${version}); the API accepts it once its key cache expires (30 s by default)`,
    );
  }
  lines.unshift(`name    ${name}`, `key     ${key}`, `sha256  ${hash}`, '');
  if (!ssm) {
    lines.push(
      'add the hash to auth.keys in the config file (merge with any keys already there):',
      JSON.stringify({ auth: { keys: { [name]: hash } } }, null, 2),
    );
  }
  io.stdout(`${lines.join('\n')}\n`);
  io.stderr(
    'warning: the key is shown only this once and is stored nowhere; put it in your secret store now\n',
  );
  if (ssm)
    io.stderr(
      `note: a stack with the caller-keys table (output CallerKeysTableName) reads ${ssm.parameter} only until 'switchyard keys migrate --apply'; add keys there with --table\n`,
    );
  return EXIT_OK;
}

async function revoke(io: CliIo, name: string, ssm: SsmKeys): Promise<number> {
  const before = await readKeys(ssm);
  if (!Object.hasOwn(before.keys, name)) {
    const names = Object.keys(before.keys);
    throw new CliUsageError(
      `no key '${name}' in ${ssm.parameter} (${names.length > 0 ? `keys: ${names.join(', ')}` : 'it holds no keys'})`,
    );
  }
  const keys = Object.fromEntries(Object.entries(before.keys).filter(([n]) => n !== name));
  const version = await writeKeys(
    io,
    ssm,
    keys,
    before.version,
    `caller keys; ${name} revoked by switchyard keys revoke`,
  );
  io.stdout(
    `revoked '${name}' (${ssm.parameter} version ${version}); the API refuses it once its key cache expires (30 s by default)\n`,
  );
  if (Object.keys(keys).length === 0)
    io.stderr('warning: no caller keys left; the API now refuses every caller\n');
  return EXIT_OK;
}

async function list(io: CliIo, config: SwitchyardConfig, ssm: SsmKeys | undefined): Promise<number> {
  const keys = ssm ? (await readKeys(ssm)).keys : (config.auth?.keys ?? {});
  const where = ssm ? ssm.parameter : 'the config file (auth.keys)';
  const rows = Object.entries(keys)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, hash]) => [name, hash.slice(0, 8)]);
  if (rows.length === 0) {
    const effect = ssm ? 'the API refuses every caller' : 'the local gateway does not check caller keys';
    io.stdout(`no caller keys in ${where}; ${effect}\n`);
    return EXIT_OK;
  }
  io.stdout(`${where}\n\n${formatTable(['NAME', 'SHA-256'], rows)}\n`);
  return EXIT_OK;
}
