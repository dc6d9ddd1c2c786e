import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import type { AnswerCache, CachedAnswer } from '../../../lambda/core/last-resort/answer-cache.js';
import { createDynamoDbAnswerCache } from '../../../lambda/stores/dynamodb-answer-cache.js';
import { createMemoryAnswerCache } from '../../../lambda/stores/memory-answer-cache.js';
import { breakerStoreSettings, selectBreakerStore } from '../../../lambda/stores/select-breaker-store.js';
import {
  DYNALITE_ENV,
  openBreakerTable,
  type RunningDynalite,
  startDynalite,
} from '../../helpers/dynalite.js';
import { startGatewayHarness } from '../../helpers/gateway-harness.js';

const ANSWER: CachedAnswer = { content: 'It is up.', toolCalls: [], finishReason: 'length', model: 'b' };
const KEY = 'a'.repeat(64);
const NOW = 1_800_000_000_000;
// The JSON of ANSWER is this many bytes: a bound of exactly that keeps it, one less does not.
const ANSWER_BYTES = Buffer.byteLength(JSON.stringify(ANSWER));

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

const stores: Array<[string, (maxBytes: number) => AnswerCache]> = [
  ['memory', (maxBytes) => createMemoryAnswerCache({ maxEntries: 10, maxBytes })],
  [
    'dynamodb',
    (maxBytes) =>
      createDynamoDbAnswerCache({
        client: createDocumentClient(table.client),
        tableName: table.tableName,
        maxBytes,
      }),
  ],
];

describe.each(stores)('%s answer cache', (_name, open) => {
  it('gives back what it kept until it expires, and nothing from the expiry on', async () => {
    const cache = open(32_768);
    await cache.put(KEY, ANSWER, NOW + 1_000);
    expect(await cache.get(KEY, NOW + 999)).toEqual(ANSWER);
    expect(await cache.get(KEY, NOW + 1_000)).toBeUndefined();
  });

  it('keeps an answer of exactly maxBytes and refuses one byte more', async () => {
    const exact = open(ANSWER_BYTES);
    await exact.put(KEY, ANSWER, NOW + 1_000);
    expect(await exact.get(KEY, NOW)).toEqual(ANSWER);
    const tight = open(ANSWER_BYTES - 1);
    await tight.put('b'.repeat(64), ANSWER, NOW + 1_000);
    expect(await tight.get('b'.repeat(64), NOW)).toBeUndefined();
  });

  it('replaces an older answer for the same key', async () => {
    const cache = open(32_768);
    await cache.put(KEY, ANSWER, NOW + 1_000);
    await cache.put(KEY, { ...ANSWER, content: 'Newer.' }, NOW + 2_000);
    expect((await cache.get(KEY, NOW + 1_500))?.content).toBe('Newer.');
  });

  it('misses a key it never saw', async () => {
    expect(await open(32_768).get(KEY, NOW)).toBeUndefined();
  });
});

describe('memory answer cache bounds', () => {
  it('keeps at most maxEntries answers, forgetting the oldest', async () => {
    const cache = createMemoryAnswerCache({ maxEntries: 2, maxBytes: 32_768 });
    for (const key of ['k1', 'k2', 'k3']) await cache.put(key, ANSWER, NOW + 1_000);
    expect(cache.size()).toBe(2);
    expect(await cache.get('k1', NOW)).toBeUndefined();
    expect(await cache.get('k3', NOW)).toEqual(ANSWER);
  });
});

describe('answers in the breaker table', () => {
  it('one item per key under answer#<hash>, with the TTL attribute in epoch seconds', async () => {
    const cache = createDynamoDbAnswerCache({
      client: createDocumentClient(table.client),
      tableName: table.tableName,
      maxBytes: 32_768,
    });
    await cache.put(KEY, ANSWER, NOW + 1_500);
    const { Items } = await createDocumentClient(table.client).send(
      new ScanCommand({ TableName: table.tableName }),
    );
    expect(Items).toEqual([
      {
        pipeline: `answer#${KEY}`,
        model: 'answer',
        answer: JSON.stringify(ANSWER),
        expiresAtMs: NOW + 1_500,
        expiresAt: Math.ceil((NOW + 1_500) / 1000),
      },
    ]);
  });

  it('stays out of the breakers of every pipeline', async () => {
    const cache = createDynamoDbAnswerCache({
      client: createDocumentClient(table.client),
      tableName: table.tableName,
      maxBytes: 32_768,
    });
    await cache.put(KEY, ANSWER, NOW + 1_000);
    expect((await table.store.readPipeline('p', NOW)).size).toBe(0);
  });
});

describe('the gateway with its answers in DynamoDB', () => {
  it('serves the cached last resort from the table, whose items hold no prompt text', async () => {
    const documents = createDocumentClient(table.client);
    const answers = createDynamoDbAnswerCache({
      client: documents,
      tableName: table.tableName,
      maxBytes: 32_768,
    });
    const h = await startGatewayHarness({ p: { chain: 'a', lastResort: { type: 'cache' } } }, { answers });
    try {
      const ask = {
        model: 'p',
        messages: [{ role: 'user', content: 'customer 0xCAFE asks about invoice 99' }],
      };
      h.openai.script('model-a', [{ text: 'Invoice 99 is paid.' }]);
      expect((await h.post(ask)).status).toBe(200);
      h.openai.setDefault('model-a', { status: 503 });
      const res = await h.post(ask);
      expect(res.headers.get('x-switchyard-degraded')).toBe('cache');
      expect((await res.json()).choices[0].message.content).toBe('Invoice 99 is paid.');
      const { Items = [] } = await documents.send(new ScanCommand({ TableName: table.tableName }));
      const answerItems = Items.filter((item) => String(item.pipeline).startsWith('answer#'));
      expect(answerItems).toHaveLength(1);
      expect(JSON.stringify(answerItems)).not.toContain('0xCAFE');
      expect(answerItems[0]?.pipeline).toMatch(/^answer#[0-9a-f]{64}$/);
    } finally {
      await h.close();
    }
  });
});

describe('the store choice brings its answer cache', () => {
  it('memory has none of its own (the gateway keeps answers in its process); DynamoDB keeps them in the breaker table', async () => {
    expect((await selectBreakerStore(breakerStoreSettings({ env: {} }))).answers).toBeUndefined();
    const env = {
      ...DYNALITE_ENV,
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    };
    const selected = await selectBreakerStore(breakerStoreSettings({ env }));
    try {
      const cache = selected.answers?.({ maxEntries: 10, maxBytes: 32_768 });
      await cache?.put(KEY, ANSWER, NOW + 1_000);
      const other = createDynamoDbAnswerCache({
        client: createDocumentClient(table.client),
        tableName: table.tableName,
        maxBytes: 32_768,
      });
      expect(await other.get(KEY, NOW)).toEqual(ANSWER);
    } finally {
      selected.close();
    }
  });
});
