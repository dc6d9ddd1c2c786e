import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { BREAKER_TABLE_KEYS } from '../../lambda/stores/dynamodb-breaker-keys.js';
import { keptTable } from './kept-table.js';

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
    this.table = keptTable(this, 'Table', BREAKER_TABLE_KEYS);
  }
}
