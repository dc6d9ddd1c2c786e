import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { BREAKER_TABLE_KEYS } from '../../lambda/stores/dynamodb-breaker-keys.js';

/**
 * The breaker table shared by every Lambda container: one partition per pipeline, one item per
 * model, so a pipeline's whole state is one Query. On-demand, TTL on old window data, point-in-time
 * recovery, deletion protection, and kept when the stack is deleted (it is cheap, and its history
 * explains incidents).
 */
export class BreakerTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: BREAKER_TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: BREAKER_TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: BREAKER_TABLE_KEYS.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
