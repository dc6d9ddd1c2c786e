import { SSMClient } from '@aws-sdk/client-ssm';
import {
  type AwsJsonOperation,
  type AwsJsonServer,
  AwsJsonFault as SsmFault,
  startAwsJsonServer,
} from './fake-aws-json-server.js';

/** One stored version of a parameter, as SSM's history keeps it. */
export interface FakeSsmVersion {
  name: string;
  value: string;
  type: string;
  version: number;
  description: string | undefined;
  /** ARN built from the caller's access key id (`arn:aws:iam::000000000000:user/<AKID>`). */
  by: string;
  /** Milliseconds since the epoch. */
  modified: number;
}

/** `url`: pass as `endpoint` or `AWS_ENDPOINT_URL_SSM`. */
export interface FakeSsm extends AwsJsonServer {
  /** Writes a new version directly, as an operator with the console would. Returns the version. */
  put(name: string, value: string, options?: { type?: string; description?: string; by?: string }): number;
  /** The latest value, or undefined. */
  value(name: string): string | undefined;
  /** All versions of a parameter, oldest first. */
  versions(name: string): readonly FakeSsmVersion[];
  delete(name: string): void;
}

const ACCOUNT = '000000000000';

/**
 * A tiny SSM Parameter Store over the AWS JSON 1.1 protocol (`x-amz-target: AmazonSSM.<Op>`),
 * enough for `@aws-sdk/client-ssm` and Powertools' `SSMProvider`: GetParameter, GetParameters,
 * GetParametersByPath, GetParameterHistory, PutParameter, DeleteParameter. SecureString values
 * are stored in clear and answered only with `WithDecryption`.
 */
export async function startFakeSsm(): Promise<FakeSsm> {
  const store = new Map<string, FakeSsmVersion[]>();

  const write = (name: string, value: string, type: string, description: string | undefined, by: string) => {
    const history = store.get(name) ?? [];
    const version = (history.at(-1)?.version ?? 0) + 1;
    history.push({ name, value, type, version, description, by, modified: Date.now() });
    store.set(name, history);
    return version;
  };
  const latest = (name: string) => {
    const v = store.get(name)?.at(-1);
    if (!v) throw new SsmFault('ParameterNotFound', `Parameter ${name} not found.`);
    return v;
  };
  const shape = (v: FakeSsmVersion, decrypt: unknown) => ({
    Name: v.name,
    Type: v.type,
    Value: v.type === 'SecureString' && decrypt !== true ? 'AQICAHh-encrypted-by-kms' : v.value,
    Version: v.version,
    LastModifiedDate: v.modified / 1000,
    ARN: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter${v.name}`,
    DataType: 'text',
  });
  const page = <T>(items: T[], body: Record<string, unknown>, max: number) => {
    const start = Number(body.NextToken ?? 0);
    const size = Math.min(Number(body.MaxResults ?? max), max);
    const next = start + size < items.length ? String(start + size) : undefined;
    return { items: items.slice(start, start + size), next };
  };

  const operations: Record<string, AwsJsonOperation> = {
    GetParameter: (b) => ({ Parameter: shape(latest(String(b.Name)), b.WithDecryption) }),
    GetParameters: (b) => {
      const names = (b.Names as string[] | undefined) ?? [];
      if (names.length > 10) throw new SsmFault('ValidationException', 'Names: at most 10 names per call');
      return {
        Parameters: names.flatMap((n) => (store.has(n) ? [shape(latest(n), b.WithDecryption)] : [])),
        InvalidParameters: names.filter((n) => !store.has(n)),
      };
    },
    GetParametersByPath: (b) => {
      if (Number(b.MaxResults ?? 10) > 10)
        throw new SsmFault('ValidationException', 'MaxResults: at most 10');
      const path = String(b.Path).replace(/\/$/, '');
      const under = [...store.keys()].filter((n) => {
        if (!n.startsWith(`${path}/`)) return false;
        return b.Recursive === true || !n.slice(path.length + 1).includes('/');
      });
      const { items, next } = page(under.sort(), b, 10);
      return { Parameters: items.map((n) => shape(latest(n), b.WithDecryption)), NextToken: next };
    },
    GetParameterHistory: (b) => {
      latest(String(b.Name));
      const { items, next } = page(store.get(String(b.Name)) ?? [], b, 50);
      return {
        Parameters: items.map((v) => ({
          ...shape(v, b.WithDecryption),
          LastModifiedUser: v.by,
          Description: v.description,
          Labels: [],
          Tier: 'Standard',
        })),
        NextToken: next,
      };
    },
    PutParameter: (b, accessKeyId) => {
      const name = String(b.Name);
      const existing = store.get(name)?.at(-1);
      if (existing && b.Overwrite !== true)
        throw new SsmFault('ParameterAlreadyExists', 'The parameter already exists.');
      if (typeof b.Value !== 'string' || b.Value === '')
        throw new SsmFault('ValidationException', 'Value must not be empty');
      const type = String(b.Type ?? existing?.type ?? 'String');
      const description = typeof b.Description === 'string' ? b.Description : existing?.description;
      // The tiers' size limits (4 KB Standard, 8 KB Advanced); Intelligent-Tiering picks the smallest that fits.
      const bytes = Buffer.byteLength(b.Value, 'utf8');
      const tier =
        b.Tier === 'Advanced' || (b.Tier === 'Intelligent-Tiering' && bytes > 4096) ? 'Advanced' : 'Standard';
      if (bytes > (tier === 'Advanced' ? 8192 : 4096))
        throw new SsmFault(
          'ValidationException',
          `Parameter value exceeds the ${tier} tier's maximum length`,
        );
      const by = `arn:aws:iam::${ACCOUNT}:user/${accessKeyId}`;
      return { Version: write(name, b.Value, type, description, by), Tier: tier };
    },
    DeleteParameter: (b) => {
      latest(String(b.Name));
      store.delete(String(b.Name));
      return {};
    },
  };

  const server = await startAwsJsonServer({
    name: 'SSM',
    targetPrefix: 'AmazonSSM',
    internalErrorType: 'InternalServerError',
    operations,
  });
  return {
    ...server,
    put: (name, value, o = {}) =>
      write(name, value, o.type ?? 'String', o.description, o.by ?? `arn:aws:iam::${ACCOUNT}:user/console`),
    value: (name) => store.get(name)?.at(-1)?.value,
    versions: (name) => store.get(name) ?? [],
    delete: (name) => void store.delete(name),
  };
}

/** An SDK client for `ssm` signed with `accessKeyId`; one attempt, so a scripted failure is seen as it is. */
export function fakeSsmClient(ssm: FakeSsm, accessKeyId = 'AKID'): SSMClient {
  return new SSMClient({
    endpoint: ssm.url,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: 'fake' },
    maxAttempts: 1,
  });
}
