import * as z from 'zod';
import { ConfigError } from '../core/errors.js';

/** A variable where unset and blank both mean unset; surrounding spaces are trimmed. */
export const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined),
  z.string().optional(),
);

/** The SDK's own region and static-key variables, for the schemas of the AWS adapters' settings. */
export const awsEnvFields = {
  AWS_REGION: optionalText,
  AWS_DEFAULT_REGION: optionalText,
  AWS_ACCESS_KEY_ID: optionalText,
  AWS_SECRET_ACCESS_KEY: optionalText,
  AWS_SESSION_TOKEN: optionalText,
};

type AwsEnv = { [K in keyof typeof awsEnvFields]?: string | undefined };

/** Static keys for an SDK client; undefined leaves them to the SDK's own chain. */
export type AwsCredentials =
  | { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined }
  | undefined;

/**
 * Parses `env` with `schema`. Throws `ConfigError` naming the first bad variable, what it must be
 * and the value it has.
 */
export function parseEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  throw new ConfigError(name, `${issue?.message ?? 'invalid'}, not '${String(env[name])}'`);
}

/**
 * Region and keys for a client: the `AWS_*` variables when set. A local endpoint (`local`), which
 * checks no signature, gets `us-east-1` and dummy keys when they are not; AWS itself gets nothing,
 * so the SDK's own chain (the Lambda role, a profile) decides.
 */
export function awsClientIdentity(
  env: AwsEnv,
  local: boolean,
): { region: string | undefined; credentials: AwsCredentials } {
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          sessionToken: env.AWS_SESSION_TOKEN,
        }
      : local
        ? { accessKeyId: 'switchyard-local', secretAccessKey: 'switchyard-local' }
        : undefined;
  return {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (local ? 'us-east-1' : undefined),
    credentials,
  };
}
