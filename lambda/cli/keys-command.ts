import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { SSMClient } from '@aws-sdk/client-ssm';
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
import { createCliSsmClient, ssmCall } from './ssm-cli-support.js';

export const KEYS_USAGE = [
  'usage: switchyard keys issue <name> [--ssm [--replace]]',
  '       switchyard keys revoke <name> --ssm',
  '       switchyard keys list [--ssm]',
  'every form takes --config FILE; with --ssm the keys live in <prefix>/caller-keys (SecureString)',
].join('\n');

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
 * `switchyard keys`: issues, revokes and lists caller keys. A key is printed once, at issue; only
 * its SHA-256 is stored (in the config's `auth.keys`, or with `--ssm` in `<prefix>/caller-keys`).
 */
export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      ssm: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const [action, name, ...rest] = positionals;
  if (!action || rest.length > 0 || (action === 'list') !== (name === undefined))
    throw new CliUsageError(KEYS_USAGE);
  if (name !== undefined && !KEY_NAME.test(name))
    throw new CliUsageError(`key name '${name}' must be 1-64 letters, digits or - _ .`);

  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const ssm: SsmKeys | undefined = values.ssm
    ? {
        client: createCliSsmClient(io.env),
        parameter: callerKeysParameterName(resolveSsmPrefix(config, io.env)),
      }
    : undefined;

  switch (action) {
    case 'issue':
      return issue(io, name as string, ssm, values.replace);
    case 'revoke':
      if (!ssm)
        throw new CliUsageError(
          `revoke works on SSM (--ssm); for the local gateway delete auth.keys.${name} from the config file`,
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
