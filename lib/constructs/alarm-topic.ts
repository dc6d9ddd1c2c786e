import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  /** Subscribed to the topic when set (AWS mails a confirmation link first). */
  email?: string | undefined;
}

/**
 * The SNS topic every alarm notifies. It is encrypted with a customer-managed key (rotated yearly)
 * because CloudWatch cannot publish to a topic under the AWS-managed `alias/aws/sns` key: only a
 * key policy we own can let the `cloudwatch.amazonaws.com` principal generate the data key and
 * decrypt. The key protects nothing but these notifications, so it is deleted with the stack.
 */
export class AlarmTopic extends Construct {
  readonly key: Key;
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Switchyard alarm topic: lets CloudWatch alarms publish to the encrypted topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // In a key policy `*` is this key itself.
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Switchyard alarms',
      enforceSSL: true,
      masterKey: this.key,
    });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
