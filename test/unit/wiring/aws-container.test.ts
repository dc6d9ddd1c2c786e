import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../lambda/config/switchyard-config.js';
import { validatedRecordPath } from '../../../lambda/config/validated-config.js';
import { createAwsContainer } from '../../../lambda/wiring/aws-container.js';

const TEXT = JSON.stringify({
  providers: { p: { type: 'openai', baseURL: 'https://example.test/v1' } },
  models: { m: { provider: 'p', model: 'raw' } },
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-container-'));
  writeFileSync(join(dir, 'switchyard.config.json'), TEXT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({
  SWITCHYARD_CONFIG: 'switchyard.config.json',
  LAMBDA_TASK_ROOT: dir,
  AWS_REGION: 'us-east-1',
});

describe('the AWS container of a Lambda', () => {
  it('hands out one SSM and one Secrets Manager client, each the same at every read', () => {
    const container = createAwsContainer(env());
    expect(container.ssm).toBeInstanceOf(SSMClient);
    expect(container.ssm).toBe(container.ssm);
    expect(container.secretsManager).toBeInstanceOf(SecretsManagerClient);
    expect(container.secretsManager).toBe(container.secretsManager);
    expect(container.ssmProvider).toBe(container.ssmProvider);
    expect(container.secrets).toBe(container.secrets);
  });

  it('takes the config validated at synth from the record beside it', () => {
    const sha256 = createHash('sha256').update(TEXT).digest('hex');
    const config = { ...parseConfigText(TEXT, 'x'), marker: 'from the record' };
    writeFileSync(
      validatedRecordPath(join(dir, 'switchyard.config.json')),
      JSON.stringify({ sha256, config }),
    );
    expect(createAwsContainer(env()).config).toHaveProperty('marker', 'from the record');
  });

  it('validates a config without a record, and refuses a broken one naming the field', () => {
    expect(createAwsContainer(env()).config.models.m?.model).toBe('raw');
    writeFileSync(join(dir, 'switchyard.config.json'), TEXT.replace('"raw"', '42'));
    expect(() => createAwsContainer(env())).toThrow(/models\.m\.model/);
  });
});
