import { paginateListSubscriptionsByTopic, type SNSClient, type Subscription } from '@aws-sdk/client-sns';
import type { DoctorLine } from './doctor-checks.js';
import { describeAwsError, SNS_SERVICE } from './ssm-cli-support.js';

/** What SNS lists as the ARN of a subscription nobody has confirmed yet. */
const PENDING = 'PendingConfirmation';

const line = (status: DoctorLine['status'], subject: string, text: string): DoctorLine => ({
  status,
  subject,
  text,
});

const resubscribe = (topicArn: string, email: string) =>
  `aws sns subscribe --topic-arn ${topicArn} --protocol email --notification-endpoint ${email}`;

/** Every subscription of the topic, all pages. */
async function subscriptionsOf(client: SNSClient, topicArn: string): Promise<Subscription[]> {
  const all: Subscription[] = [];
  for await (const page of paginateListSubscriptionsByTopic({ client }, { TopicArn: topicArn }))
    all.push(...(page.Subscriptions ?? []));
  return all;
}

/**
 * Whether an alarm can reach a person: the alarm topic (`--alarm-topic`, the stack's
 * `AlarmTopicArn` output) has a confirmed subscription — `aws.alarmEmail`'s when the config sets
 * one. SNS lists an unconfirmed subscription with the ARN `PendingConfirmation`, and delivers
 * nothing to it: an e-mail address nobody confirmed is a deployment whose alarms reach nobody.
 * Without a topic, only a reminder that it was not checked (when the config names an e-mail).
 */
export async function checkAlarmSubscription(
  client: SNSClient,
  topicArn: string | undefined,
  alarmEmail: string | undefined,
): Promise<DoctorLine[]> {
  const subject = alarmEmail ? `alarm e-mail ${alarmEmail}` : 'alarm topic';
  if (topicArn === undefined) {
    return alarmEmail
      ? [
          line(
            'warn',
            subject,
            'not checked → switchyard doctor --alarm-topic <the AlarmTopicArn stack output>',
          ),
        ]
      : [];
  }
  let subscriptions: Subscription[];
  try {
    subscriptions = await subscriptionsOf(client, topicArn);
  } catch (error) {
    if (error instanceof Error && error.name === 'NotFoundException')
      return [
        line(
          'fix',
          subject,
          `${topicArn} does not exist → pass the AlarmTopicArn output of the deployed stack, in its region`,
        ),
      ];
    return [line('fix', subject, `cannot check: ${describeAwsError(error, SNS_SERVICE)}`)];
  }
  if (alarmEmail) {
    const mine = subscriptions.filter(
      (s) => s.Protocol === 'email' && s.Endpoint?.toLowerCase() === alarmEmail.toLowerCase(),
    );
    if (mine.some((s) => s.SubscriptionArn !== PENDING))
      return [line('ok', subject, `subscribed to ${topicArn} and confirmed`)];
    if (mine.length > 0)
      return [
        line(
          'fix',
          subject,
          `waiting for confirmation, so no alarm reaches it → click "Confirm subscription" in the mail AWS sent (the link expires after 3 days; a new one: ${resubscribe(topicArn, alarmEmail)})`,
        ),
      ];
    return [
      line(
        'fix',
        subject,
        `not subscribed to ${topicArn}, so no alarm reaches it → deploy with this aws.alarmEmail, or ${resubscribe(topicArn, alarmEmail)}`,
      ),
    ];
  }
  const confirmed = subscriptions.filter((s) => s.SubscriptionArn !== PENDING);
  if (confirmed.length > 0) {
    const protocols = [...new Set(confirmed.map((s) => s.Protocol ?? '?'))].sort().join(', ');
    const count =
      confirmed.length === 1 ? '1 confirmed subscription' : `${confirmed.length} confirmed subscriptions`;
    return [line('ok', subject, `${count} (${protocols}) on ${topicArn}`)];
  }
  const pending = subscriptions.length;
  return [
    line(
      'fix',
      subject,
      `${pending === 0 ? 'nobody is subscribed' : `${pending} subscription(s), none confirmed`} to ${topicArn}, so alarms reach nobody → set aws.alarmEmail and deploy (then confirm the mail), or subscribe Chatbot, PagerDuty or another endpoint to it`,
    ),
  ];
}
