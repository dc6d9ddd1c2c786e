import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import { isOpen } from '../../../lambda/core/breaker/breaker-state.js';
import { createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { POLICY } from './breaker-contract-harness.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

type Table = Awaited<ReturnType<typeof openBreakerTable>>;
let table: Table;
beforeEach(async () => {
  table = await openBreakerTable(dynalite);
});
afterEach(() => table.close());

const doc = () => createDocumentClient(table.client);
const item = async (pipeline: string, model: string) =>
  (
    await doc().send(
      new GetCommand({ TableName: table.tableName, Key: { pipeline, model }, ConsistentRead: true }),
    )
  ).Item ?? {};
const partition = async (pipeline: string) =>
  (
    await doc().send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pipeline = :p',
        ExpressionAttributeValues: { ':p': pipeline },
      }),
    )
  ).Items ?? [];

describe('ad-hoc chains on the DynamoDB breaker store', () => {
  it('writes every ad-hoc chain’s breaker into the one partition adhoc, in the same item shape as a pipeline’s', async () => {
    const clock = createFakeClock();
    const container = (store = table.store) => createBreakers({ store, clock, policyFor: () => POLICY });
    const one = container();
    await one.record('chain:(a|b)', 'a', { at: clock.now(), outcome: 'model_not_found' });
    await one.record('p', 'a', { at: clock.now(), outcome: 'model_not_found' });

    expect(await partition('chain:(a|b)')).toEqual([]);
    const adHoc = await item('adhoc', 'a');
    expect(adHoc.openReason).toBe('model_not_found');
    expect(Object.keys(adHoc).sort()).toEqual(Object.keys(await item('p', 'a')).sort());

    // Another container, another chain naming `a`: the same quarantine.
    const other = container(table.connect().store);
    const seen = (await other.read('chain:a,c')).get('a');
    expect(seen && isOpen(seen, clock.now())).toBe(true);
  });
});
