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
  ssm: FakeSsm;
  secrets: FakeSecretsManager;
  /** Path of the config file. */
  config: string;
  /** Pass to `runCliCaptured`. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Starts a fake SSM and a fake Secrets Manager and writes `config` to a temp file. */
export async function startOperatorAws(config: unknown): Promise<OperatorAws> {
  const [ssm, secrets] = await Promise.all([startFakeSsm(), startFakeSecretsManager()]);
  return {
    ssm,
    secrets,
    config: writeTempConfig(config),
    env: operatorAwsEnv({ ssm: ssm.url, secretsManager: secrets.url }),
    close: async () => {
      await Promise.all([ssm.close(), secrets.close()]);
    },
  };
}
