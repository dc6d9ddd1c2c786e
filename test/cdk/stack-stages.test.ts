import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackNameFor } from '../../lib/stage-names.js';
import { synthStack, withAws } from './stack-fixture.js';

/** Property keys that hold a physical name AWS keeps unique per account and region. */
const NAME_KEYS = new Set([
  'QueueName',
  'Name',
  'DashboardName',
  'AlarmName',
  'TableName',
  'FunctionName',
  'TopicName',
  'LogGroupName',
  'RoleName',
  'ApplicationName',
  'DeploymentGroupName',
  'DeploymentConfigName',
  'GroupName',
  'ScheduleGroupName',
]);

/**
 * Resources whose name is unique only inside a parent: an alias inside its function, a schedule
 * inside its group (the stack's own, named after the stack; asserted below).
 */
const SCOPED_TYPES = new Set(['AWS::Lambda::Alias', 'AWS::Scheduler::Schedule']);

/**
 * Every explicit physical name in a template, as `Type.Key=value`: names written out (a string or
 * a join), not references to another resource (a `Ref` to a function is that function's name).
 */
function physicalNames(template: Template): string[] {
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties?: object }>;
  return Object.values(resources)
    .filter((r) => !SCOPED_TYPES.has(r.Type))
    .flatMap((r) =>
      Object.entries(r.Properties ?? {})
        .filter(([key, value]) => NAME_KEYS.has(key) && (typeof value === 'string' || 'Fn::Join' in value))
        .map(([key, value]) => `${r.Type}.${key}=${JSON.stringify(value)}`),
    );
}

/** The metric namespaces the alarms read and the functions write. */
function namespaces(template: Template): Set<string> {
  const found = new Set<string>();
  const json = JSON.stringify(template.toJSON());
  for (const m of json.matchAll(/"Namespace":"(Switchyard[^"]*)"/g)) found.add(m[1] as string);
  for (const m of json.matchAll(/"POWERTOOLS_METRICS_NAMESPACE":"([^"]+)"/g)) found.add(m[1] as string);
  return found;
}

const stage = (name: string | undefined, aws: Record<string, unknown> = {}) =>
  synthStack(withAws({ ...(name ? { stage: name } : {}), ...aws }), stackNameFor(name));

let base: Template;
let staging: Template;
let production: ReturnType<typeof stage>;
beforeAll(() => {
  base = stage(undefined).template;
  staging = stage('staging').template;
  production = stage('production', { production: true });
}, 120_000);

describe('stages: every physical name derives from aws.stage', () => {
  it('keeps the names of a deployment without a stage exactly as before', () => {
    expect(stackNameFor(undefined)).toBe('Switchyard');
    const names = physicalNames(base);
    expect(names).toContain('AWS::SQS::Queue.QueueName="Switchyard-jobs"');
    expect(names).toContain('AWS::SQS::Queue.QueueName="Switchyard-jobs-dlq"');
    expect(names).toContain('AWS::ApiGateway::RestApi.Name="Switchyard"');
    expect(names).toContain('AWS::CloudWatch::Dashboard.DashboardName="Switchyard"');
    expect(namespaces(base)).toEqual(new Set(['Switchyard']));
    const env = JSON.stringify(base.findResources('AWS::Lambda::Function'));
    expect(env).toContain('"SWITCHYARD_SSM_PREFIX":"/switchyard"');
  });

  it('names a stage`s stack, queues, API and dashboard Switchyard-<stage>', () => {
    expect(stackNameFor('staging')).toBe('Switchyard-staging');
    const names = physicalNames(staging);
    expect(names).toContain('AWS::SQS::Queue.QueueName="Switchyard-staging-jobs"');
    expect(names).toContain('AWS::SQS::Queue.QueueName="Switchyard-staging-jobs-dlq"');
    expect(names).toContain('AWS::ApiGateway::RestApi.Name="Switchyard-staging"');
    expect(names).toContain('AWS::CloudWatch::Dashboard.DashboardName="Switchyard-staging"');
  });

  it('shares no explicit physical name between two stages, nor with the stage-less stack', () => {
    const a = physicalNames(staging);
    const b = physicalNames(production.template);
    expect(a.length).toBeGreaterThanOrEqual(4);
    expect(a.length).toBe(b.length);
    expect(a.filter((n) => b.includes(n))).toEqual([]);
    expect(a.filter((n) => physicalNames(base).includes(n))).toEqual([]);
  });

  it('puts its schedules in a schedule group of its own, named after the stack', () => {
    const groups = Object.values(staging.findResources('AWS::Scheduler::ScheduleGroup'));
    expect(groups).toHaveLength(1);
    const name = groups[0]?.Properties.Name as string;
    expect(name).toMatch(/^Switchyardstaging-/);
    const schedules = Object.values(staging.findResources('AWS::Scheduler::Schedule'));
    expect(schedules.length).toBeGreaterThan(0);
    for (const schedule of schedules) expect(schedule.Properties.GroupName).toBe(name);
  });

  it('writes and alarms on the metrics of its own namespace, Switchyard/<stage>', () => {
    expect(namespaces(staging)).toEqual(new Set(['Switchyard/staging']));
    expect(namespaces(production.template)).toEqual(new Set(['Switchyard/production']));
    const dashboard = JSON.stringify(staging.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard).toContain('[\\"Switchyard/staging\\",\\"Requests\\"');
    expect(dashboard).not.toContain('[\\"Switchyard\\",');
  });

  it('reads its own SSM prefix, /switchyard-<stage>, and may read no other', () => {
    const fns = JSON.stringify(staging.findResources('AWS::Lambda::Function'));
    expect(fns).toContain('"SWITCHYARD_SSM_PREFIX":"/switchyard-staging"');
    const policies = JSON.stringify(staging.findResources('AWS::IAM::Policy'));
    expect(policies).toContain(':parameter/switchyard-staging/*');
    expect(policies).not.toContain(':parameter/switchyard/*');
  });
});

describe('stages: production and what outlives a stack', () => {
  it('turns termination protection on for a stage marked production, and only for it', () => {
    expect(production.stack.terminationProtection).toBe(true);
    const artifact = production.app.synth().getStackByName('Switchyard-production');
    expect(artifact.terminationProtection).toBe(true);
    expect(stage('staging').stack.terminationProtection).toBe(false);
  }, 60_000);

  it('keeps the jobs dead-letter queue when the stack is deleted or the queue replaced', () => {
    const queues = base.findResources('AWS::SQS::Queue', {
      Properties: { QueueName: 'Switchyard-jobs-dlq' },
    });
    const [dlq] = Object.values(queues);
    expect(dlq?.DeletionPolicy).toBe('Retain');
    expect(dlq?.UpdateReplacePolicy).toBe('Retain');
    const [jobs] = Object.values(
      base.findResources('AWS::SQS::Queue', { Properties: { QueueName: 'Switchyard-jobs' } }),
    );
    expect(jobs?.DeletionPolicy).toBe('Delete');
  });
});
