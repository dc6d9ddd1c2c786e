import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { type FakeSns, startFakeSns } from '../helpers/fake-sns.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const DEPLOYED = {
  providers: { bedrock: { type: 'bedrock', region: 'us-east-1' } },
  models: { haiku: { provider: 'bedrock', model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0' } },
  pipelines: { q: { chain: 'haiku' } },
  aws: { alarmEmail: 'oncall@example.com' },
};

const aws = useOperatorAws(DEPLOYED);
let sns: FakeSns;
let withoutEmail: string;
beforeAll(async () => {
  sns = await startFakeSns();
  withoutEmail = writeTempConfig({ ...DEPLOYED, aws: {} });
  aws.ssm.put('/switchyard/caller-keys', JSON.stringify({ app: sha256Hex('sy-app') }), {
    type: 'SecureString',
  });
});
afterAll(() => sns.close());

const doctor = (args: string[], config = aws.config) =>
  runCliCaptured(['doctor', '--config', config, ...args], { ...aws.env, AWS_ENDPOINT_URL_SNS: sns.url });

/** The alarm line(s) of a run. */
const alarmLines = (stdout: string) => stdout.split('\n').filter((l) => /^(ok|warn|FIX) +alarm /.test(l));

describe('switchyard doctor: does an alarm reach a person?', () => {
  it('fails while the alarm e-mail has not confirmed its subscription, naming what to click', async () => {
    const topic = sns.createTopic('pending');
    sns.subscribe(topic, 'email', 'oncall@example.com');
    const out = await doctor(['--alarm-topic', topic]);
    expect(out.code).toBe(1);
    expect(alarmLines(out.stdout)).toEqual([
      `FIX   alarm e-mail oncall@example.com: waiting for confirmation, so no alarm reaches it → click "Confirm subscription" in the mail AWS sent (the link expires after 3 days; a new one: aws sns subscribe --topic-arn ${topic} --protocol email --notification-endpoint oncall@example.com)`,
    ]);
    expect(sns.actions).toContain('ListSubscriptionsByTopic');
  });

  it('passes once it is confirmed, found on a later page among other subscriptions', async () => {
    const topic = sns.createTopic('confirmed');
    sns.subscribe(topic, 'email', 'someone@example.com', true);
    sns.subscribe(topic, 'https', 'https://hooks.example.com/a', true);
    sns.subscribe(topic, 'email', 'OnCall@example.com', true);
    const out = await doctor(['--alarm-topic', topic]);
    expect(alarmLines(out.stdout)).toEqual([
      `ok    alarm e-mail oncall@example.com: subscribed to ${topic} and confirmed`,
    ]);
    expect(out.code).toBe(0);
  });

  it('fails when the alarm e-mail is not subscribed at all', async () => {
    const topic = sns.createTopic('elsewhere');
    sns.subscribe(topic, 'email', 'someone@example.com', true);
    const out = await doctor(['--alarm-topic', topic]);
    expect(out.code).toBe(1);
    expect(alarmLines(out.stdout)[0]).toContain(
      `FIX   alarm e-mail oncall@example.com: not subscribed to ${topic}`,
    );
  });

  it('without aws.alarmEmail, passes on any confirmed subscription and fails on none', async () => {
    const topic = sns.createTopic('chatbot');
    sns.subscribe(topic, 'email', 'x@example.com');
    expect(alarmLines((await doctor(['--alarm-topic', topic], withoutEmail)).stdout)).toEqual([
      `FIX   alarm topic: 1 subscription(s), none confirmed to ${topic}, so alarms reach nobody → set aws.alarmEmail and deploy (then confirm the mail), or subscribe Chatbot, PagerDuty or another endpoint to it`,
    ]);
    sns.subscribe(topic, 'https', 'https://global.sns-api.chatbot.amazonaws.com', true);
    const out = await doctor(['--alarm-topic', topic], withoutEmail);
    expect(alarmLines(out.stdout)).toEqual([
      `ok    alarm topic: 1 confirmed subscription (https) on ${topic}`,
    ]);
    expect(out.code).toBe(0);
  });

  it('names a topic that does not exist', async () => {
    const out = await doctor(['--alarm-topic', 'arn:aws:sns:us-east-1:123456789012:gone']);
    expect(out.code).toBe(1);
    expect(alarmLines(out.stdout)).toEqual([
      'FIX   alarm e-mail oncall@example.com: arn:aws:sns:us-east-1:123456789012:gone does not exist → pass the AlarmTopicArn output of the deployed stack, in its region',
    ]);
  });

  it('says it did not check without --alarm-topic, as a warning', async () => {
    const out = await doctor([]);
    expect(alarmLines(out.stdout)).toEqual([
      'warn  alarm e-mail oncall@example.com: not checked → switchyard doctor --alarm-topic <the AlarmTopicArn stack output>',
    ]);
    expect(out.code).toBe(0);
    expect(alarmLines((await doctor([], withoutEmail)).stdout)).toEqual([]);
  });

  it('reports an unreachable SNS as a check it could not make', async () => {
    const out = await runCliCaptured(
      ['doctor', '--config', aws.config, '--alarm-topic', 'arn:aws:sns:us-east-1:1:t'],
      {
        ...aws.env,
        AWS_ENDPOINT_URL_SNS: 'http://127.0.0.1:9',
      },
    );
    expect(out.code).toBe(1);
    expect(alarmLines(out.stdout)[0]).toMatch(
      /^FIX {3}alarm e-mail oncall@example.com: cannot check: cannot reach SNS/,
    );
  });
});
