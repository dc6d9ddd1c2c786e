import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, type ITable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { BREAKER_TABLE_KEYS } from '../../lambda/stores/dynamodb-breaker-keys.js';
import { keptTable } from './kept-table.js';

/**
 * Where the breaker table of a multi-region deployment lives (docs/design.md#more-than-one-region):
 * `owner` creates the global table with a replica in each of `replicaRegions`; `replica` uses the
 * replica the owner created in this region, by its name.
 */
export type GlobalBreakerTable =
  | { role: 'owner'; tableName: string; replicaRegions: readonly string[] }
  | { role: 'replica'; tableName: string };

/**
 * The breaker table shared by every Lambda container: one partition per pipeline, one item per
 * model, so a pipeline's whole state is one Query. On-demand, TTL on old window data, point-in-time
 * recovery, deletion protection, and kept when the stack is deleted (it is cheap, and its history
 * explains incidents). With `global`, the same table as a DynamoDB global table replicated to
 * every region of the deployment.
 */
export class BreakerTable extends Construct {
  readonly table: ITable;

  constructor(scope: Construct, id: string, global?: GlobalBreakerTable) {
    super(scope, id);
    if (!global) {
      this.table = keptTable(this, 'Table', BREAKER_TABLE_KEYS);
      return;
    }
    if (global.role === 'replica') {
      this.table = TableV2.fromTableName(this, 'Table', global.tableName);
      return;
    }
    const keys = BREAKER_TABLE_KEYS;
    this.table = new TableV2(this, 'Table', {
      tableName: global.tableName,
      partitionKey: { name: keys.partitionKey, type: AttributeType.STRING },
      ...(keys.sortKey ? { sortKey: { name: keys.sortKey, type: AttributeType.STRING } } : {}),
      timeToLiveAttribute: keys.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      replicas: global.replicaRegions.map((region) => ({ region })),
    });
  }
}
