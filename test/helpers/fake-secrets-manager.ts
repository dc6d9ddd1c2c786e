import { randomUUID } from 'node:crypto';
import {
  type AwsJsonOperation,
  type AwsJsonServer,
  AwsJsonFault as SecretsFault,
  startAwsJsonServer,
} from './fake-aws-json-server.js';

/** `url`: pass as `endpoint` or `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
export interface FakeSecretsManager extends AwsJsonServer {
  /** Creates a secret directly, as the console would; without a value it has no current version. */
  create(name: string, value?: string): void;
  /** The current value, or undefined. */
  value(name: string): string | undefined;
  /** Every value the secret has held, oldest first. */
  values(name: string): readonly string[];
  /** Marks a secret for deletion (DeleteSecret with a recovery window). */
  scheduleDeletion(name: string): void;
  delete(name: string): void;
}

interface Secret {
  name: string;
  arn: string;
  description: string | undefined;
  versions: { id: string; value: string; created: number }[];
  changed: number;
  deleted: number | undefined;
}

/**
 * A tiny Secrets Manager over the AWS JSON 1.1 protocol (`x-amz-target: secretsmanager.<Op>`),
 * enough for `@aws-sdk/client-secrets-manager` and Powertools' `SecretsProvider`: CreateSecret,
 * PutSecretValue, DescribeSecret, GetSecretValue. Secrets Manager has no emulator on the registry.
 */
export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const secrets = new Map<string, Secret>();

  const add = (name: string, description: string | undefined) => {
    if (secrets.has(name))
      throw new SecretsFault('ResourceExistsException', `The secret ${name} already exists.`);
    const arn = `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-${randomUUID().slice(0, 6)}`;
    const secret: Secret = { name, arn, description, versions: [], changed: Date.now(), deleted: undefined };
    secrets.set(name, secret);
    return secret;
  };
  const find = (id: unknown, usable = false) => {
    const secret = [...secrets.values()].find((s) => s.name === id || s.arn === id);
    if (!secret)
      throw new SecretsFault('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    if (usable && secret.deleted !== undefined) {
      throw new SecretsFault(
        'InvalidRequestException',
        "You can't perform this operation on the secret because it was marked for deletion.",
      );
    }
    return secret;
  };
  const putValue = (secret: Secret, value: unknown) => {
    if (typeof value !== 'string' || value === '')
      throw new SecretsFault('InvalidParameterException', 'SecretString must not be empty.');
    const id = randomUUID();
    secret.versions.push({ id, value, created: Date.now() });
    secret.changed = Date.now();
    return id;
  };
  const current = (secret: Secret) => secret.versions.at(-1);

  const operations: Record<string, AwsJsonOperation> = {
    CreateSecret: (b) => {
      const secret = add(String(b.Name), typeof b.Description === 'string' ? b.Description : undefined);
      const id = b.SecretString === undefined ? undefined : putValue(secret, b.SecretString);
      return { ARN: secret.arn, Name: secret.name, ...(id ? { VersionId: id } : {}) };
    },
    PutSecretValue: (b) => {
      const secret = find(b.SecretId, true);
      const id = putValue(secret, b.SecretString);
      return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: ['AWSCURRENT'] };
    },
    DescribeSecret: (b) => {
      const secret = find(b.SecretId);
      const stages: Record<string, string[]> = {};
      const [previous, latest] = [secret.versions.at(-2), current(secret)];
      if (previous) stages[previous.id] = ['AWSPREVIOUS'];
      if (latest) stages[latest.id] = ['AWSCURRENT'];
      return {
        ARN: secret.arn,
        Name: secret.name,
        Description: secret.description,
        LastChangedDate: secret.changed / 1000,
        ...(secret.deleted !== undefined ? { DeletedDate: secret.deleted / 1000 } : {}),
        VersionIdsToStages: stages,
      };
    },
    GetSecretValue: (b) => {
      const secret = find(b.SecretId, true);
      const latest = current(secret);
      if (!latest)
        throw new SecretsFault(
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
        );
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: latest.id,
        SecretString: latest.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: latest.created / 1000,
      };
    },
  };

  const server = await startAwsJsonServer({
    name: 'Secrets Manager',
    targetPrefix: 'secretsmanager',
    internalErrorType: 'InternalServiceError',
    operations,
  });
  return {
    ...server,
    create: (name, value) => {
      const secret = add(name, undefined);
      if (value !== undefined) putValue(secret, value);
    },
    value: (name) => {
      const secret = secrets.get(name);
      return secret ? current(secret)?.value : undefined;
    },
    values: (name) => secrets.get(name)?.versions.map((v) => v.value) ?? [],
    scheduleDeletion: (name) => {
      const secret = find(name);
      secret.deleted = Date.now() + 7 * 86_400_000;
    },
    delete: (name) => void secrets.delete(name),
  };
}
