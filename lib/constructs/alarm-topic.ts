import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  /** Subscribed to the topic when set (AWS mails a confirmation link first). */
  email?: string | undefined;
  /**
   * Name pattern of every alarm that may publish, e.g. `Switchyard.*` (see `alarmName`): the
   * `aws:SourceArn` of both grants. It must come from the same prefix the alarm names are built
   * from, or delivery breaks with no synth error.
   */
  alarmNamePattern: string;
}

/**
 * The SNS topic every alarm notifies. It is encrypted with a customer-managed key (rotated yearly)
 * because CloudWatch cannot publish to a topic under the AWS-managed `alias/aws/sns` key: only a
 * key policy we own can let the `cloudwatch.amazonaws.com` principal generate the data key and
 * decrypt. The key protects nothing but these notifications, so it is deleted with the stack.
 *
 * `enforceSSL` makes the CDK write a topic policy, and a topic policy replaces SNS's default one:
 * without an explicit allow for CloudWatch, every alarm action fails ("no resource-based policy
 * allows the SNS:Publish action"). Both the topic's allow and the key's grant are conditioned on
 * this account and on this stack's alarm ARNs (the confused-deputy guard AWS documents), while the
 * topic still denies any publish that is not over TLS.
 */
export class AlarmTopic extends Construct {
  readonly key: Key;
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:${props.alarmNamePattern}`,
      },
    };
    this.key = new Key(this, 'Key', {
      description: 'Switchyard alarm topic: lets CloudWatch alarms publish to the encrypted topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // In a key policy `*` is this key itself.
        resources: ['*'],
        conditions: fromOurAlarms,
      }),
    );
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Switchyard alarms',
      enforceSSL: true,
      masterKey: this.key,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
