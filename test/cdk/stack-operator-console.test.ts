import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack } from './stack-fixture.js';

const WRITES = /^ssm:(Put|Delete|Label|AddTags)/;

const withConsole = (aws?: Record<string, unknown>) => ({
  ...STACK_CONFIG,
  statusPage: { enabled: true, console: true },
  ...(aws ? { aws } : {}),
});

/** Every SSM write action of every role's policies, with the role's logical id. */
function ssmWrites(template: Template): { role: string; action: string }[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  return policies.flatMap((p) =>
    (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) =>
      [s.Action]
        .flat()
        .filter((a) => WRITES.test(a))
        .map((action) => ({ role: JSON.stringify(p.Properties.Roles), action })),
    ),
  );
}

let off: Template;
let on: Template;
let onOtherPrefix: Template;
beforeAll(() => {
  off = synthStack().template;
  on = synthStack(withConsole()).template;
  onOtherPrefix = synthStack(withConsole({ ssmPrefix: '/team/gateway' })).template;
}, 180_000);

describe('Switchyard stack: the operator console may write chain overrides only when enabled', () => {
  it('grants no role an SSM write while statusPage.console is off (the default)', () => {
    expect(ssmWrites(off)).toEqual([]);
  });

  it('with the console on, lets the API role put and delete <prefix>/chains/* and read their history, nothing else', () => {
    const grant = roleStatements(on, 'ApiFunctionRole').find(
      (s) => s.Sid === 'OperatorConsoleWritesChainOverrides',
    );
    expect(grant && actionsOf(grant).sort()).toEqual([
      'ssm:DeleteParameter',
      'ssm:GetParameterHistory',
      'ssm:PutParameter',
    ]);
    expect([grant?.Resource].flat().map(arnText)).toEqual([
      expect.stringMatching(/:parameter\/switchyard\/chains\/\*$/),
    ]);
  });

  it('with the console on, gives the write to the API role alone (the worker never serves the console)', () => {
    const writers = ssmWrites(on).map((w) => w.role);
    expect(writers.length).toBeGreaterThan(0);
    for (const role of writers) expect(role).toContain('ApiFunctionRole');
    expect(
      roleStatements(on, 'ScheduledJobsWorkerRole')
        .flatMap(actionsOf)
        .filter((a) => WRITES.test(a)),
    ).toEqual([]);
  });

  it('passes cdk-nag (AwsSolutions) with the console on: its one wildcard, <prefix>/chains/*, acknowledged', () => {
    const { app } = synthStack(withConsole(), 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  }, 120_000);

  it('follows aws.ssmPrefix', () => {
    const grant = roleStatements(onOtherPrefix, 'ApiFunctionRole').find(
      (s) => s.Sid === 'OperatorConsoleWritesChainOverrides',
    );
    expect([grant?.Resource].flat().map(arnText)).toEqual([
      expect.stringMatching(/:parameter\/team\/gateway\/chains\/\*$/),
    ]);
  });
});
