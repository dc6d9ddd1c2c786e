import type { ChildProcess } from 'node:child_process';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbAdmissionStore } from '../../lambda/stores/dynamodb-admission-store.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { DYNALITE_ENV, openBreakerTable, type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { bearer, type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';
import { spawnServe } from '../helpers/serve-process.js';

const KEYS = { alice: 'sk-alice-0123456789' };

let dynalite: RunningDynalite;
let table: Awaited<ReturnType<typeof openBreakerTable>>;
let h: GatewayHarness;
let fake: FakeUpstream;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dynalite = await startDynalite();
  fake = await startFakeOpenAI();
  table = await openBreakerTable(dynalite);
  h = await startGatewayHarness(
    { p: { chain: 'a' } },
    {
      auth: { keys: KEYS },
      admissionStore: createDynamoDbAdmissionStore({
        client: createDocumentClient(table.client),
        tableName: table.tableName,
      }),
      configure: (config) => {
        config.admission = { keys: { alice: { usdPerDay: 1 } } };
      },
    },
  );
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fake.close();
  await h.close();
  table.close();
  await dynalite.stop();
});

describe('admission store outage', () => {
  it('admits a spend-capped request again as soon as its lost table is back, without a restart', async () => {
    expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
    await table.client.send(new DeleteTableCommand({ TableName: table.tableName }));
    const lost = await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice));
    expect(lost.status).toBe(503);
    expect(((await lost.json()) as { error: { code: string } }).error.code).toBe('admission_unavailable');

    await ensureBreakerTable(table.client, table.tableName);
    expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
  });
});

describe('switchyard serve on a local DynamoDB endpoint', () => {
  it('creates its lost admission table again, so the next spend-capped request is admitted without a restart', async () => {
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url } },
      models: { a: { provider: 'fake', model: 'model-a', price: { inputPerMTok: 2, outputPerMTok: 8 } } },
      pipelines: { p: { chain: 'a' } },
      admission: { pipelines: { p: { usdPerDay: 1 } } },
    });
    const tableName = 'lost-admission';
    const serve = spawnServe(['--config', config, '--port', '0'], {
      ...DYNALITE_ENV,
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    });
    children.push(serve.proc);
    const url = await serve.url(20_000);
    const chat = () =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'p', ...HELLO }),
      });
    expect((await chat()).status).toBe(200);

    const client = new DynamoDBClient({
      endpoint: dynalite.endpoint,
      region: DYNALITE_ENV.AWS_REGION,
      credentials: { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' },
    });
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    client.destroy();
    const lost = await chat();
    expect(lost.status).toBe(503);
    expect(((await lost.json()) as { error: { code: string } }).error.code).toBe('admission_unavailable');

    // The table is deleted, then created again, in the background; each try is a real request.
    const until = Date.now() + 15_000;
    let status = lost.status;
    while (status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await chat()).status;
    }
    expect(status).toBe(200);
    expect(serve.output()).toContain('admission table was missing and is created again');
  });
});
