import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack } from './stack-fixture.js';

const ROUTER_ROLES = ['ApiFunctionRole', 'ScheduledJobsWorkerRole'];

/** Two Anthropic accounts: one key in an SSM SecureString, one in Secrets Manager. */
const WITH_ANTHROPIC = {
  ...STACK_CONFIG,
  providers: {
    ...STACK_CONFIG.providers,
    anthropic: { type: 'anthropic' as const, apiKeySecret: '/switchyard/keys/anthropic' },
    'anthropic-backup': { type: 'anthropic' as const, apiKeySecret: 'switchyard/anthropic-backup' },
  },
  models: {
    ...STACK_CONFIG.models,
    'claude-fast': { provider: 'anthropic', model: 'claude-haiku-4-5' },
    'claude-backup': { provider: 'anthropic-backup', model: 'claude-haiku-4-5' },
  },
};

let template: Template;
beforeAll(() => {
  ({ template } = synthStack(WITH_ANTHROPIC, 'SwitchyardAnthropic'));
});

describe('Switchyard stack with Anthropic providers', () => {
  it('lets every router read the Anthropic keys by name, next to the other providers’ keys', () => {
    for (const prefix of ROUTER_ROLES) {
      const statements = roleStatements(template, prefix);
      const ssm = statements.find((s) => s.Sid === 'ReadProviderKeysInSsm');
      expect(ssm && actionsOf(ssm).sort()).toEqual(['ssm:GetParameter', 'ssm:GetParameters']);
      expect(arnText(ssm?.Resource)).toContain('parameter/switchyard/keys/anthropic');
      expect(arnText(ssm?.Resource)).toContain('parameter/switchyard/keys/openai');
      const secrets = statements.find((s) => s.Sid === 'ReadProviderKeysInSecretsManager');
      expect(secrets && actionsOf(secrets)).toEqual(['secretsmanager:GetSecretValue']);
      expect(arnText(secrets?.Resource)).toContain('secret:switchyard/anthropic-backup-??????');
    }
  });

  it('grants no Bedrock model for an Anthropic provider: its models are called over HTTPS with the key', () => {
    for (const prefix of ROUTER_ROLES) {
      const invoke = roleStatements(template, prefix).filter((s) =>
        actionsOf(s).some((a) => a.startsWith('bedrock:')),
      );
      expect(arnText(invoke.map((s) => s.Resource))).not.toContain('claude-haiku-4-5');
    }
  });

  it('refuses an Anthropic provider whose key exists only in a local environment variable', () => {
    const local = {
      ...WITH_ANTHROPIC,
      providers: {
        ...WITH_ANTHROPIC.providers,
        anthropic: { type: 'anthropic' as const, apiKeyEnv: 'ANTHROPIC_API_KEY' },
      },
    };
    expect(() => synthStack(local)).toThrow(/providers\.anthropic: apiKeyEnv .* only works locally/);
  });
});
