/**
 * `probe` and `doctor` name the missing AWS credential (issue 31, item 3): without credentials a
 * Bedrock route is `not_configured` (not probed, not dead), and doctor's AWS checks say which
 * variables to set, in one line each and without a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock } from '../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { useNoAwsCredentials } from '../helpers/no-aws-credentials.js';

useNoAwsCredentials();

let bedrock: FakeUpstream;
let config: string;
beforeAll(async () => {
  bedrock = await startFakeBedrock();
  config = writeTempConfig({
    providers: { br: { type: 'bedrock', region: 'us-east-1', endpoint: bedrock.url } },
    models: { llama: { provider: 'br', model: 'bedrock-model' } },
    pipelines: { p: { chain: 'llama' } },
  });
});
afterAll(() => bedrock.close());

describe('switchyard probe without AWS credentials', () => {
  it('reports the Bedrock route as not configured, naming the variables, and sends nothing', async () => {
    const { code, stdout } = await runCliCaptured(['probe', '--config', config]);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /llama\s+br\s+bedrock-model\s+not_configured\s+-\s+\d+ ms\s+no AWS credentials found for provider 'br' \(set AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, or run with an IAM role\)/,
    );
    expect(stdout).toContain(
      '\nnot configured: llama — no AWS credentials here (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, or run with an IAM role); not probed, not a dead route\n',
    );
    expect(stdout).not.toContain('dead routes:');
    expect(bedrock.requests).toHaveLength(0);
  });

  it('lists the route under notConfigured with --json, not under dead', async () => {
    const { stdout } = await runCliCaptured(['probe', '--config', config, '--json']);
    const output = JSON.parse(stdout);
    expect(output).toMatchObject({ dead: [], notConfigured: ['llama'] });
    expect(output.models[0]).toMatchObject({ outcome: 'not_configured', dead: false, status: null });
  });
});

describe('switchyard doctor without AWS credentials', () => {
  it('says in each AWS check which credential variables to set', async () => {
    const out = await runCliCaptured(['doctor', '--config', config], {
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    });
    expect(out.code).toBe(1);
    expect(out.stdout).not.toMatch(/\n\s+at /);
    const fixes = out.stdout.split('\n').filter((l) => l.startsWith('FIX '));
    expect(fixes.length).toBeGreaterThan(0);
    for (const l of fixes)
      expect(l).toMatch(
        /cannot check: (?:.*: )?no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY$/,
      );
  });
});
