import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

const ROUTER_ROLES = ['ApiFunctionRole', 'ScheduledJobsWorkerRole'];

/** The same deployment with every pipeline's config chain changed. */
const CHANGED = {
  ...STACK_CONFIG,
  pipelines: Object.fromEntries(
    Object.entries(STACK_CONFIG.pipelines).map(([name, p]) => [name, { ...p, chain: 'llama-together' }]),
  ),
};

let before: Template;
let after: Template;
let otherPrefix: Template;
beforeAll(() => {
  before = synthStack().template;
  after = synthStack(CHANGED).template;
  otherPrefix = synthStack(withAws({ ssmPrefix: '/team/gateway' })).template;
});

describe('Switchyard stack: chain overrides belong to the operator', () => {
  it.each([
    ['the config chains', () => before],
    ['changed config chains', () => after],
  ])('creates no SSM parameter and no custom resource with %s', (_name, template) => {
    template().resourceCountIs('AWS::SSM::Parameter', 0);
    template().resourceCountIs('AWS::CloudFormation::CustomResource', 0);
    const types = Object.values(template().toJSON().Resources as Record<string, { Type: string }>).map(
      (r) => r.Type,
    );
    expect(types.filter((t) => t.startsWith('Custom::'))).toEqual([]);
    expect(JSON.stringify(template().toJSON())).not.toContain('/chains');
  });

  it('lets no role of the stack write or delete a parameter', () => {
    for (const template of [before, after]) {
      const policies = Object.values(template.findResources('AWS::IAM::Policy'));
      const actions = policies.flatMap((p) =>
        (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) =>
          [s.Action].flat(),
        ),
      );
      expect(actions.filter((a) => /^ssm:(Put|Delete|Label|AddTags)/.test(a))).toEqual([]);
    }
  });

  it.each(ROUTER_ROLES)('lets %s read everything under the prefix: by path, singly and batched', (role) => {
    const read = roleStatements(before, role).find((s) => s.Sid === 'ReadParametersUnderPrefix');
    expect(read && actionsOf(read).sort()).toEqual([
      'ssm:GetParameter',
      'ssm:GetParameters',
      'ssm:GetParametersByPath',
    ]);
    const resources = [read?.Resource].flat().map(arnText);
    expect(resources).toHaveLength(2);
    expect(resources.find((r) => r.endsWith(':parameter/switchyard'))).toBeDefined();
    expect(resources.find((r) => r.endsWith(':parameter/switchyard/*'))).toBeDefined();
  });

  it('follows aws.ssmPrefix and grants nothing under the default prefix then', () => {
    for (const role of ROUTER_ROLES) {
      const read = roleStatements(otherPrefix, role).find((s) => s.Sid === 'ReadParametersUnderPrefix');
      const resources = [read?.Resource].flat().map(arnText);
      expect(resources.map((r) => r.replace(/^.*:parameter/, ''))).toEqual([
        '/team/gateway',
        '/team/gateway/*',
      ]);
    }
    const api = roleStatements(otherPrefix, 'ApiFunctionRole');
    expect(arnText(api.map((s) => s.Resource))).not.toContain('parameter/switchyard/*');
    expect(
      otherPrefix.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { SWITCHYARD_SSM_PREFIX: '/team/gateway' } } },
      }),
    ).not.toEqual({});
  });

  it('needs no KMS grant: SecureStrings under the prefix use the aws/ssm key, whose policy already allows it', () => {
    for (const role of ROUTER_ROLES) {
      expect(
        roleStatements(before, role)
          .flatMap(actionsOf)
          .filter((a) => a.startsWith('kms:')),
      ).toEqual([]);
    }
  });
});
