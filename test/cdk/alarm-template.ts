import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import type { Statement } from './stack-fixture.js';

/** What the alarm tests read from a synthesised template: alarms, the topic and key policies. */
export type Alarm = { Properties: Record<string, unknown> };
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

/** Every alarm of `t` by logical id. */
export const alarmsOf = (t: Template) => t.findResources('AWS::CloudWatch::Alarm') as Record<string, Alarm>;

/** The alarm whose name is `<stack>.<name>`. */
export function alarmNamed(
  t: Template,
  name: string,
  stack = 'Switchyard',
): { id: string; props: Record<string, unknown> } {
  const found = Object.entries(alarmsOf(t)).filter(([, a]) => a.Properties.AlarmName === `${stack}.${name}`);
  expect(found, name).toHaveLength(1);
  const [id, alarm] = found[0] ?? ['', { Properties: {} }];
  return { id, props: alarm.Properties };
}

/** The one logical id of `type` starting with `prefix`. */
export function logicalId(t: Template, type: string, prefix: string): string {
  const ids = Object.keys(t.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

/** The statements of the topic policy (there is exactly one). */
export function topicPolicy(t: Template): Statement[] {
  const policies = Object.values(t.findResources('AWS::SNS::TopicPolicy'));
  expect(policies).toHaveLength(1);
  return (policies[0] as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties
    .PolicyDocument.Statement;
}

/** The key policy statements of the alarm topic's key. */
export function keyPolicy(t: Template): Statement[] {
  const key = t.findResources('AWS::KMS::Key')[logicalId(t, 'AWS::KMS::Key', 'OperationsAlarmTopicKey')] as {
    Properties: { KeyPolicy: { Statement: Statement[] } };
  };
  return key.Properties.KeyPolicy.Statement;
}

/** `{ "Fn::Join": ["", [...]] }` with `AWS::Partition` → the ARN text a request would carry. */
function resolveArn(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(resolveArn).join(join[0]);
  if ((value as { Ref?: string }).Ref === 'AWS::Partition') return 'aws';
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/** IAM's `ArnLike`: `*` any run of characters, `?` one. */
function arnLike(pattern: string, arn: string): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`).test(arn);
}

/**
 * Whether `statements` allow CloudWatch, publishing over TLS on behalf of `alarmArn` in `account`,
 * to do `action`, and no statement denies it: the evaluation SNS and KMS make, reduced to the
 * principals, actions and condition keys these policies use.
 */
export function allowsCloudWatch(
  statements: Statement[],
  action: string,
  alarmArn: string,
  account = ACCOUNT,
): boolean {
  const context: Record<string, string> = {
    'aws:SourceAccount': account,
    'aws:SourceArn': alarmArn,
    'aws:SecureTransport': 'true',
  };
  const matches = (s: Statement & { Principal?: unknown }) => {
    const principal = JSON.stringify(s.Principal ?? {});
    if (principal !== '{"Service":"cloudwatch.amazonaws.com"}' && principal !== '{"AWS":"*"}') return false;
    const actionMatches = [s.Action].flat().some((a) => arnLike(a.toLowerCase(), action.toLowerCase()));
    if (!actionMatches) return false;
    for (const [operator, entries] of Object.entries(s.Condition ?? {})) {
      for (const [key, expected] of Object.entries(entries as Record<string, unknown>)) {
        const actual = context[key];
        if (actual === undefined) return false;
        const values = [expected].flat().map(resolveArn);
        const ok =
          operator === 'ArnLike'
            ? values.some((v) => arnLike(v, actual))
            : operator === 'StringEquals' || operator === 'Bool'
              ? values.includes(actual)
              : false;
        if (!ok) return false;
      }
    }
    return true;
  };
  const applicable = statements.filter(matches);
  return applicable.some((s) => s.Effect === 'Allow') && !applicable.some((s) => s.Effect === 'Deny');
}

export const arnOf = (name: string) => `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${name}`;
