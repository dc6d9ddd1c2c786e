import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Every variable the AWS SDK's default provider chain reads to find credentials or a profile. */
const AWS_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_EC2_METADATA_DISABLED',
] as const;

/**
 * For the tests of the calling file: a process in which the SDK's default chain finds no AWS
 * credentials. The chain reads `process.env`, so it is emptied of every AWS variable, the profile
 * files point at empty temp files and the instance-metadata link is off; all is restored after.
 */
export function useNoAwsCredentials(): void {
  let saved: Record<string, string | undefined> = {};
  let dir = '';
  beforeAll(() => {
    saved = Object.fromEntries(AWS_VARS.map((name) => [name, process.env[name]]));
    for (const name of AWS_VARS) delete process.env[name];
    dir = mkdtempSync(join(tmpdir(), 'switchyard-no-aws-'));
    writeFileSync(join(dir, 'config'), '');
    writeFileSync(join(dir, 'credentials'), '');
    process.env.AWS_CONFIG_FILE = join(dir, 'config');
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
  });
  afterAll(() => {
    for (const name of AWS_VARS) {
      const value = saved[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });
}
