import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake answered: the operation (`PutSecretValue`…) and its JSON body. */
export interface FakeSecretsRequest {
  target: string;
  body: Record<string, unknown>;
}

export interface FakeSecretsManager {
  /** Pass as `endpoint` or `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  url: string;
  /** Every request, oldest first. */
  readonly requests: FakeSecretsRequest[];
  /** Creates a secret directly, as the console would; without a value it has no current version. */
  create(name: string, value?: string): void;
  /** The current value, or undefined. */
  value(name: string): string | undefined;
  /** Every value the secret has held, oldest first. */
  values(name: string): readonly string[];
  /** Marks a secret for deletion (DeleteSecret with a recovery window). */
  scheduleDeletion(name: string): void;
  delete(name: string): void;
  /** The next `times` requests for `target` (e.g. `DescribeSecret`) fail with the given error. */
  fail(target: string, error: { type: string; status?: number; message?: string }, times?: number): void;
  close(): Promise<void>;
}

interface Secret {
  name: string;
  arn: string;
  description: string | undefined;
  versions: { id: string; value: string; created: number }[];
  changed: number;
  deleted: number | undefined;
}

class SecretsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * A tiny Secrets Manager over the AWS JSON 1.1 protocol (`x-amz-target: secretsmanager.<Op>`),
 * enough for `@aws-sdk/client-secrets-manager` and Powertools' `SecretsProvider`: CreateSecret,
 * PutSecretValue, DescribeSecret, GetSecretValue. Secrets Manager has no emulator on the registry.
 */
export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const secrets = new Map<string, Secret>();
  const requests: FakeSecretsRequest[] = [];
  const failures = new Map<string, { type: string; status: number; message: string; times: number }>();

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

  const operations: Record<string, (b: Record<string, unknown>) => unknown> = {
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

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '').replace(/^secretsmanager\./, '');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    requests.push({ target, body });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    try {
      const failure = failures.get(target);
      if (failure && failure.times > 0) {
        failure.times -= 1;
        throw new SecretsFault(failure.type, failure.message, failure.status);
      }
      const operation = operations[target];
      if (!operation)
        throw new SecretsFault('UnknownOperationException', `fake Secrets Manager does not do '${target}'`);
      send(200, operation(body));
    } catch (error) {
      const fault =
        error instanceof SecretsFault ? error : new SecretsFault('InternalServiceError', String(error), 500);
      send(fault.status, { __type: fault.type, message: fault.message });
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
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
    fail: (target, e, times = 1) =>
      failures.set(target, { type: e.type, status: e.status ?? 400, message: e.message ?? e.type, times }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
