import {
  CreateSecretCommand,
  DescribeSecretCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetParametersCommand, PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { isSsmName } from '../aws/provider-keys.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import {
  type CliAwsService,
  describeAwsError,
  isUnreachable,
  SECRETS_MANAGER_SERVICE,
  SSM_SERVICE,
  SsmCommandError,
} from './ssm-cli-support.js';

/** Where the config says a provider's key lives in AWS mode (`providers.<name>.apiKeySecret`). */
export type ProviderKeyLocation =
  | { provider: string; kind: 'ssm' | 'secrets-manager'; name: string }
  /** Bedrock (the function's IAM role), or an OpenAI-compatible endpoint with no key at all. */
  | { provider: string; kind: 'not-needed'; why: string }
  /** An endpoint that needs a key (`apiKeyEnv`) but names no `apiKeySecret`: AWS mode has none. */
  | { provider: string; kind: 'unset'; apiKeyEnv: string };

/** Whether a key exists at its location; never its value. */
export type ProviderKeyState =
  | { state: 'present'; detail: string; note?: string }
  | { state: 'missing' }
  /** A Secrets Manager secret with no current value, or one scheduled for deletion. */
  | { state: 'unusable'; why: string }
  /** The service answered with an error for this name (e.g. AccessDenied). */
  | { state: 'unreadable'; why: string };

/** The two stores a provider key can live in. */
export interface ProviderKeyClients {
  ssm: SSMClient;
  secrets: SecretsManagerClient;
}

/** Every configured provider's key location, in provider-name order. */
export function providerKeyLocations(config: SwitchyardConfig): ProviderKeyLocation[] {
  return Object.entries(config.providers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([provider, p]): ProviderKeyLocation => {
      if (p.type === 'bedrock') return { provider, kind: 'not-needed', why: 'Bedrock: the IAM role' };
      if (p.apiKeySecret !== undefined)
        return {
          provider,
          kind: isSsmName(p.apiKeySecret) ? 'ssm' : 'secrets-manager',
          name: p.apiKeySecret,
        };
      if (p.apiKeyEnv !== undefined) return { provider, kind: 'unset', apiKeyEnv: p.apiKeyEnv };
      if (p.type === 'vertex') return { provider, kind: 'unset', apiKeyEnv: 'credentialsFile' };
      return { provider, kind: 'not-needed', why: 'keyless endpoint' };
    });
}

/** `SSM /switchyard/keys/openai`, `Secrets Manager switchyard/openrouter`. */
export function describeLocation(location: ProviderKeyLocation): string {
  if (location.kind === 'ssm') return `SSM ${location.name}`;
  if (location.kind === 'secrets-manager') return `Secrets Manager ${location.name}`;
  return '-';
}

const iso = (date: Date | undefined) => (date ? `${date.toISOString().slice(0, 19)}Z` : '');

/** SSM's GetParameters takes at most 10 names per call. */
const SSM_BATCH = 10;

/**
 * Whether each stored key exists, without reading a value: SSM names in batches of ten
 * (`GetParameters` without decryption), each secret by `DescribeSecret`. An error from the service
 * marks that name unreadable; one that never reached it (credentials, network) throws
 * `SsmCommandError`.
 */
export async function providerKeyStates(
  locations: readonly ProviderKeyLocation[],
  clients: ProviderKeyClients,
): Promise<Map<string, ProviderKeyState>> {
  const states = new Map<string, ProviderKeyState>();
  const ssmNames = [...new Set(locations.flatMap((l) => (l.kind === 'ssm' ? [l.name] : [])))];
  for (let i = 0; i < ssmNames.length; i += SSM_BATCH) {
    const batch = ssmNames.slice(i, i + SSM_BATCH);
    try {
      const out = await clients.ssm.send(new GetParametersCommand({ Names: batch, WithDecryption: false }));
      for (const p of out.Parameters ?? []) {
        if (!p.Name) continue;
        const note = p.Type === 'SecureString' ? undefined : `stored as ${p.Type}, not SecureString`;
        states.set(p.Name, {
          state: 'present',
          detail: `version ${p.Version}${p.LastModifiedDate ? `, ${iso(p.LastModifiedDate)}` : ''}`,
          ...(note ? { note } : {}),
        });
      }
      for (const name of out.InvalidParameters ?? []) states.set(name, { state: 'missing' });
    } catch (error) {
      if (isUnreachable(error)) throw unreachable(SSM_SERVICE, batch.join(', '), error);
      for (const name of batch)
        states.set(name, { state: 'unreadable', why: describeAwsError(error, SSM_SERVICE) });
    }
  }
  for (const location of locations) {
    if (location.kind !== 'secrets-manager' || states.has(location.name)) continue;
    states.set(location.name, await secretState(clients.secrets, location.name));
  }
  return states;
}

/** No credentials, region or network: every other name would fail the same way, so the command stops. */
function unreachable(service: CliAwsService, names: string, error: unknown): SsmCommandError {
  return new SsmCommandError(`checking ${names}: ${describeAwsError(error, service)}`, { cause: error });
}

async function secretState(client: SecretsManagerClient, name: string): Promise<ProviderKeyState> {
  try {
    const out = await client.send(new DescribeSecretCommand({ SecretId: name }));
    if (out.DeletedDate)
      return { state: 'unusable', why: `scheduled for deletion on ${iso(out.DeletedDate)}` };
    const current = Object.values(out.VersionIdsToStages ?? {}).some((stages) =>
      stages.includes('AWSCURRENT'),
    );
    if (!current) return { state: 'unusable', why: 'the secret has no current value' };
    return { state: 'present', detail: iso(out.LastChangedDate) || 'current value set' };
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return { state: 'missing' };
    if (isUnreachable(error)) throw unreachable(SECRETS_MANAGER_SERVICE, name, error);
    return { state: 'unreadable', why: describeAwsError(error, SECRETS_MANAGER_SERVICE) };
  }
}

/** What a write did: the SSM version, or whether a secret was created or got a new version. */
export type WriteResult = { kind: 'ssm'; version: number } | { kind: 'secrets-manager'; created: boolean };

/**
 * Writes a provider key to exactly where the config names it: an SSM SecureString (Overwrite,
 * a new version) or a Secrets Manager secret (a new version, or the secret created).
 */
export async function writeProviderKey(
  location: Extract<ProviderKeyLocation, { kind: 'ssm' | 'secrets-manager' }>,
  key: string,
  clients: ProviderKeyClients,
): Promise<WriteResult> {
  const description = `API key of provider ${location.provider}, set by switchyard provider-keys set`;
  if (location.kind === 'ssm') {
    const out = await clients.ssm.send(
      new PutParameterCommand({
        Name: location.name,
        Value: key,
        Type: 'SecureString',
        Overwrite: true,
        Description: description,
      }),
    );
    return { kind: 'ssm', version: out.Version ?? 0 };
  }
  const put = () =>
    clients.secrets.send(new PutSecretValueCommand({ SecretId: location.name, SecretString: key }));
  try {
    await put();
    return { kind: 'secrets-manager', created: false };
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await clients.secrets.send(
      new CreateSecretCommand({ Name: location.name, SecretString: key, Description: description }),
    );
    return { kind: 'secrets-manager', created: true };
  } catch (error) {
    // Someone created it between our two calls: theirs exists now, so write ours as a new version.
    if (!(error instanceof ResourceExistsException)) throw error;
    await put();
    return { kind: 'secrets-manager', created: false };
  }
}
