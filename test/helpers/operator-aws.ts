import { afterAll, beforeAll } from 'vitest';
import { writeTempConfig } from './cli-harness.js';
import { type FakeSecretsManager, startFakeSecretsManager } from './fake-secrets-manager.js';
import { type FakeSsm, startFakeSsm } from './fake-ssm.js';

/**
 * The environment of an operator's CLI on a laptop with AWS credentials, aimed at a fake SSM and,
 * when given, a fake Secrets Manager.
 */
export function operatorAwsEnv(endpoints: { ssm: string; secretsManager?: string }): NodeJS.ProcessEnv {
  return {
    AWS_ENDPOINT_URL_SSM: endpoints.ssm,
    ...(endpoints.secretsManager === undefined
      ? {}
      : { AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManager }),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDOPERATOR',
    AWS_SECRET_ACCESS_KEY: 'fake',
  };
}

/** The AWS an operator's CLI talks to in the e2e tests, and the config file it is given. */
export interface OperatorAws {
  readonly ssm: FakeSsm;
  readonly secrets: FakeSecretsManager;
  /** Path of the config file. */
  readonly config: string;
  /** Pass to `runCliCaptured`. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Registers the file's hooks: a fake SSM and a fake Secrets Manager start before its tests and
 * close after them; `config` is written to a temp file. The fields are set once the hook has run.
 */
export function useOperatorAws(config: unknown): OperatorAws {
  const aws = {} as { -readonly [K in keyof OperatorAws]: OperatorAws[K] };
  beforeAll(async () => {
    [aws.ssm, aws.secrets] = await Promise.all([startFakeSsm(), startFakeSecretsManager()]);
    aws.config = writeTempConfig(config);
    aws.env = operatorAwsEnv({ ssm: aws.ssm.url, secretsManager: aws.secrets.url });
  });
  afterAll(() => Promise.all([aws.ssm.close(), aws.secrets.close()]));
  return aws;
}
