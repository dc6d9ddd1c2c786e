import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { CALLER_KEY_TABLE_KEYS } from '../../lambda/aws/caller-key-table.js';
import { keptTable } from './kept-table.js';

/**
 * The caller keys (their SHA-256, never the keys) in a table of their own, apart from the breaker
 * table: the API may only `GetItem` here, so no code path of the API — which writes the breaker
 * table on every attempt — can ever add a key; only an operator (`switchyard keys`) can. On-demand
 * (a spike of new containers reads it at once), point-in-time recovery, deletion protection, and
 * kept when the stack is deleted, like the breaker table.
 */
export class CallerKeyTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = keptTable(this, 'Table', CALLER_KEY_TABLE_KEYS);
  }
}
