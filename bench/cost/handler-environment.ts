/**
 * What the bundled API handler needs around it in a bench, as deployed: the breaker table in
 * dynalite (its own process, so its CPU is not the handler's), the tests' fake SSM holding the
 * provider key and the hashed caller key, a config file (and the record of its validation at
 * synth) and the environment the stack gives the function. The upstreams are the caller's (an instant fake), named in the config it passes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validatedConfigRecord, validatedRecordPath } from '../../lambda/config/validated-config.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { chatEvent } from '../../test/helpers/api-handler-harness.js';
import { DYNALITE_ENV } from '../../test/helpers/dynalite.js';
import { startFakeSsm } from '../../test/helpers/fake-ssm.js';
import { startDynaliteProcess } from '../breaker-store/dynalite-process.js';

/** The caller key every bench event carries (`Authorization: Bearer …`). */
export const BENCH_CALLER_KEY = 'sy-bench-cost-caller-key-0123456789';
/** The SSM parameter of the provider key; a config's providers name it as `apiKeySecret`. */
export const BENCH_PROVIDER_KEY_PARAMETER = '/switchyard/keys/fake';

/** A running environment: a scratch directory, the handler's environment, and its teardown. */
export interface HandlerEnvironment {
  dir: string;
  env: Record<string, string>;
  /** Writes a chat event for `body` to the scratch directory and returns its path. */
  writeEvent(name: string, body?: Record<string, unknown>): string;
  close(): Promise<void>;
}

/**
 * Starts dynalite and the fake SSM and writes `config` (its `aws.ssmPrefix` is set to
 * `/switchyard`); `env` is what the API function runs with (DynamoDB breaker store).
 */
export async function startHandlerEnvironment(config: Record<string, unknown>): Promise<HandlerEnvironment> {
  const [ssm, dynalite] = await Promise.all([startFakeSsm(), startDynaliteProcess()]);
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-handler-bench-'));
  ssm.put(BENCH_PROVIDER_KEY_PARAMETER, 'sk-provider-bench', { type: 'SecureString' });
  ssm.put('/switchyard/caller-keys', JSON.stringify({ bench: sha256Hex(BENCH_CALLER_KEY) }), {
    type: 'SecureString',
  });
  const configPath = join(dir, 'config.json');
  const configText = JSON.stringify({ ...config, aws: { ssmPrefix: '/switchyard' } });
  writeFileSync(configPath, configText);
  // As `cdk synth` ships it: the record of the config's validation beside it, trusted at start.
  writeFileSync(validatedRecordPath(configPath), validatedConfigRecord(configText, configPath));
  return {
    dir,
    env: {
      PATH: process.env.PATH ?? '',
      ...DYNALITE_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
      AWS_ENDPOINT_URL_SSM: ssm.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
      SWITCHYARD_CONFIG: configPath,
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: 'switchyard-bench-cost',
      SWITCHYARD_SSM_PREFIX: '/switchyard',
      POWERTOOLS_SERVICE_NAME: 'switchyard',
    },
    writeEvent(name, body) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(chatEvent(BENCH_CALLER_KEY, body)));
      return path;
    },
    async close() {
      await ssm.close();
      dynalite.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
