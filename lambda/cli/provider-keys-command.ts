import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { type CliIo, CliUsageError, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';
import {
  describeLocation,
  type ProviderKeyClients,
  type ProviderKeyLocation,
  type ProviderKeyState,
  providerKeyLocations,
  providerKeyStates,
  writeProviderKey,
} from './provider-key-store.js';
import { checkProviderKey, checkServiceAccountKey, readSecretInput } from './secret-input.js';
import {
  awsCall,
  createCliSecretsClient,
  createCliSsmClient,
  SECRETS_MANAGER_SERVICE,
  SSM_SERVICE,
} from './ssm-cli-support.js';

/** `switchyard provider-keys --help`. */
export const PROVIDER_KEYS_USAGE = [
  'usage: switchyard provider-keys set <provider> [--config FILE]',
  '       switchyard provider-keys list [--config FILE]',
  'set reads the key from standard input (typed without echo at a terminal, or piped in), never from',
  "the command line; it writes it where the config's providers.<provider>.apiKeySecret says: a name",
  'starting with / is an SSM SecureString, anything else a Secrets Manager secret.',
  'list shows where each provider key lives and whether it exists (never its value).',
  'these are the AWS provider keys; caller keys are `switchyard keys`, local keys are apiKeyEnv variables',
].join('\n');

/**
 * `switchyard provider-keys`: writes and lists the upstream API keys of a deployment, at exactly
 * the names the config gives (`apiKeySecret`). Usage errors exit 2; AWS failures exit 1.
 */
export async function providerKeysCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: 'string' } },
    allowPositionals: true,
  });
  const [action, provider, ...rest] = positionals;
  if (!action || rest.length > 0 || (action === 'list') !== (provider === undefined))
    throw new CliUsageError(PROVIDER_KEYS_USAGE);
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const clients = (): ProviderKeyClients => ({
    ssm: createCliSsmClient(io.env),
    secrets: createCliSecretsClient(io.env),
  });
  switch (action) {
    case 'set':
      return setKey(io, config, provider as string, clients);
    case 'list':
      return listKeys(io, config, clients());
    default:
      throw new CliUsageError(`unknown action '${action}'\n${PROVIDER_KEYS_USAGE}`);
  }
}

function writableLocation(config: SwitchyardConfig, provider: string) {
  const location = providerKeyLocations(config).find((l) => l.provider === provider);
  if (!location) {
    const names = Object.keys(config.providers).sort().join(', ');
    throw new CliUsageError(`unknown provider '${provider}' (configured: ${names || 'none'})`);
  }
  if (location.kind === 'not-needed')
    throw new CliUsageError(`provider ${provider} needs no key (${location.why}); nothing to set`);
  if (location.kind === 'unset') {
    throw new CliUsageError(
      `providers.${provider} names no apiKeySecret (only apiKeyEnv ${location.apiKeyEnv}, which Lambda does not have); add "apiKeySecret": "/switchyard/keys/${provider}" to the config and deploy`,
    );
  }
  return location;
}

async function setKey(
  io: CliIo,
  config: SwitchyardConfig,
  provider: string,
  clients: () => ProviderKeyClients,
): Promise<number> {
  const location = writableLocation(config, provider);
  const raw = await readSecretInput(
    io,
    `API key of provider ${provider} (for ${describeLocation(location)}): `,
  );
  // A Vertex provider's key is the service-account key JSON, several lines as downloaded.
  const key =
    config.providers[provider]?.type === 'vertex' ? checkServiceAccountKey(raw) : checkProviderKey(raw);
  const service = location.kind === 'ssm' ? SSM_SERVICE : SECRETS_MANAGER_SERVICE;
  const result = await awsCall(service, `writing ${describeLocation(location)}`, () =>
    writeProviderKey(location, key, clients()),
  );
  const where =
    result.kind === 'ssm'
      ? `SSM parameter ${location.name} (SecureString, version ${result.version})`
      : `Secrets Manager secret ${location.name} (${result.created ? 'created' : 'new version'})`;
  io.stdout(
    `stored the key of provider ${provider} in ${where}\nrunning Lambda containers read it at their next provider-key refresh; no deploy needed\n`,
  );
  return EXIT_OK;
}

function statusText(location: ProviderKeyLocation, state: ProviderKeyState | undefined): string {
  if (location.kind === 'not-needed') return `no key needed (${location.why})`;
  if (location.kind === 'unset')
    return `no apiKeySecret in the config (apiKeyEnv ${location.apiKeyEnv} is local only)`;
  switch (state?.state) {
    case 'present':
      return `set (${state.detail})${state.note ? `; ${state.note}` : ''}`;
    case 'missing':
      return 'MISSING';
    case 'unusable':
      return `UNUSABLE: ${state.why}`;
    case 'unreadable':
      return `UNKNOWN: ${state.why}`;
    default:
      return '?';
  }
}

async function listKeys(io: CliIo, config: SwitchyardConfig, clients: ProviderKeyClients): Promise<number> {
  const locations = providerKeyLocations(config);
  const states = await providerKeyStates(locations, clients);
  if (locations.length === 0) {
    io.stdout('no providers in the config\n');
    return EXIT_OK;
  }
  const rows = locations.map((l) => {
    const name = l.kind === 'ssm' || l.kind === 'secrets-manager' ? l.name : '-';
    const store = l.kind === 'ssm' ? 'SSM' : l.kind === 'secrets-manager' ? 'Secrets Manager' : '-';
    return [l.provider, store, name, statusText(l, 'name' in l ? states.get(l.name) : undefined)];
  });
  const missing = locations.filter((l) => 'name' in l && states.get(l.name)?.state !== 'present');
  const lines = [formatTable(['PROVIDER', 'STORE', 'NAME', 'STATUS'], rows)];
  if (missing.length > 0) {
    lines.push(
      '',
      `to set a key: switchyard provider-keys set <provider> (needed: ${missing.map((l) => l.provider).join(', ')})`,
    );
  }
  io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
