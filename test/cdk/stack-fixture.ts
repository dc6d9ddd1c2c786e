import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { expect } from 'vitest';
import type * as z from 'zod';
import { embeddedConfig } from '../../lambda/config/config-file.js';
import type { SwitchyardConfig, SwitchyardConfigInput } from '../../lambda/config/switchyard-config.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import type { awsSchema } from '../../lambda/core/catalog/aws-config-schema.js';
import { SwitchyardStack } from '../../lib/switchyard-stack.js';
import { writeTempConfig } from '../helpers/cli-harness.js';

/** The embedded config with keys in SSM and Secrets Manager, two schedules and job settings. */
export const STACK_CONFIG = {
  ...embeddedConfig(),
  providers: {
    ...embeddedConfig().providers,
    openai: {
      type: 'openai' as const,
      baseURL: 'https://api.openai.com/v1',
      apiKeySecret: '/switchyard/keys/openai',
    },
    openrouter: {
      type: 'openai' as const,
      baseURL: 'https://openrouter.ai/api/v1',
      apiKeySecret: 'switchyard/openrouter',
    },
  },
  schedules: {
    'nightly-digest': {
      expression: 'cron(0 3 * * ? *)',
      pipeline: 'comment-filter',
      jobs: [{ id: 'acct-1', request: { messages: [{ role: 'user' as const, content: 'summarise' }] } }],
      spreadSeconds: 60,
      deliver: { url: 'https://hooks.example.com/digest', secretName: '/switchyard/webhooks/digest' },
    },
    hourly: {
      expression: 'rate(1 hour)',
      pipeline: 'keyword-expand',
      jobs: [{ id: 'k', request: { messages: [{ role: 'user' as const, content: 'expand' }] } }],
    },
  },
  jobs: { maxReceiveCount: 4, retentionDays: 7 },
} satisfies SwitchyardConfigInput;

/**
 * `config` with this `aws` section, validated by the config schema, so every `aws` field this test
 * does not name takes its default.
 */
export function withAws(
  aws: z.input<typeof awsSchema>,
  config: SwitchyardConfigInput = STACK_CONFIG,
): SwitchyardConfig {
  return parseConfig({ ...config, aws });
}

/**
 * A stack for `config` (validated by the config schema, so its defaults are filled; bundling
 * off), its app, and its template (synthesised on first read).
 * cdk-nag runs at every synth when `nag` is set; the checks cost seconds, so only the tests about
 * them turn it on.
 */
export function synthStack(
  input: SwitchyardConfigInput = STACK_CONFIG,
  stackName = 'Switchyard',
  nag = false,
) {
  const config = parseConfig(input);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new SwitchyardStack(app, stackName, {
    config,
    configFile: writeTempConfig(config),
    env: { account: '123456789012', region: 'us-east-1' },
  });
  let template: Template | undefined;
  return {
    app,
    stack,
    get template(): Template {
      template ??= Template.fromStack(stack);
      return template;
    },
  };
}

export type Statement = {
  Sid?: string;
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: Record<string, unknown>;
};

/** Every IAM statement of the role whose policy's logical id starts with `prefix`. */
export function roleStatements(template: Template, prefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const statements = Object.entries(policies)
    .filter(([id]) => id.startsWith(prefix))
    .flatMap(
      ([, p]) =>
        (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
          .Statement,
    );
  expect(statements.length).toBeGreaterThan(0);
  return statements;
}

/** The actions of a statement as a list. */
export const actionsOf = (s: Statement): string[] => [s.Action].flat();

/** A resolved ARN (`Fn::Join` of strings and references) as one readable string. */
export function arnText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(arnText).join(' ');
  if (value && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    if (typeof node.Ref === 'string') return `<${node.Ref}>`;
    const join = node['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(arnText).join(join[0]);
    const getAtt = node['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
  }
  return JSON.stringify(value);
}
