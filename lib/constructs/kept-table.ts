import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { LocalTableKeys } from '../../lambda/aws/ensure-table.js';

/**
 * A Switchyard table in AWS: string keys from `keys`, on-demand, TTL on `keys.ttlAttribute`,
 * point-in-time recovery, deletion protection, and kept when the stack is deleted. The same keys
 * create the local table (`ensureTable`).
 */
export function keptTable(scope: Construct, id: string, keys: LocalTableKeys): Table {
  return new Table(scope, id, {
    partitionKey: { name: keys.partitionKey, type: AttributeType.STRING },
    ...(keys.sortKey ? { sortKey: { name: keys.sortKey, type: AttributeType.STRING } } : {}),
    billingMode: BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: keys.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
