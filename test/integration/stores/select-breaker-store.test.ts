import { describe, expect, it } from 'vitest';
import { isAwsEndpoint } from '../../../lambda/aws/dynamodb-client.js';
import { ConfigError } from '../../../lambda/core/errors.js';
import { CachedBreakerStore } from '../../../lambda/stores/cached-breaker-store.js';
import { DynamoDbBreakerStore } from '../../../lambda/stores/dynamodb-breaker-store.js';
import { MemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { breakerStoreSettings, selectBreakerStore } from '../../../lambda/stores/select-breaker-store.js';

const LOCAL = { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:4567' };

describe('breaker store settings', () => {
  it('is memory unless a flag or SWITCHYARD_STORE says otherwise; the flag wins', () => {
    expect(breakerStoreSettings({ env: {} }).kind).toBe('memory');
    expect(breakerStoreSettings({ env: { SWITCHYARD_STORE: 'dynamodb' } }).kind).toBe('dynamodb');
    expect(breakerStoreSettings({ flag: 'memory', env: { SWITCHYARD_STORE: 'dynamodb' } }).kind).toBe(
      'memory',
    );
  });

  it('uses the default table name when SWITCHYARD_TABLE is not set, and says so', () => {
    expect(breakerStoreSettings({ env: { SWITCHYARD_STORE: 'dynamodb' } })).toMatchObject({
      tableName: 'switchyard-breakers',
      defaultTable: true,
    });
    expect(breakerStoreSettings({ env: { SWITCHYARD_TABLE: 'team-breakers' } })).toMatchObject({
      tableName: 'team-breakers',
      defaultTable: false,
    });
  });

  it.each([
    [{ flag: 'foo', env: {} }, '--store', "--store: must be memory or dynamodb, not 'foo'"],
    [{ env: { SWITCHYARD_STORE: 'redis' } }, 'SWITCHYARD_STORE', "must be memory or dynamodb, not 'redis'"],
    [{ env: { SWITCHYARD_TABLE: 'a b' } }, 'SWITCHYARD_TABLE', 'must be a DynamoDB table name'],
    [{ env: { SWITCHYARD_BREAKER_CACHE_MS: '1s' } }, 'SWITCHYARD_BREAKER_CACHE_MS', 'whole number'],
    [{ env: { SWITCHYARD_BREAKER_CACHE_MS: '600000' } }, 'SWITCHYARD_BREAKER_CACHE_MS', 'at most 60000'],
    [
      { env: { AWS_ENDPOINT_URL_DYNAMODB: 'localhost:4567' } },
      'AWS_ENDPOINT_URL_DYNAMODB',
      'must be an http(s) URL',
    ],
  ])('rejects bad input with the field it came from: %j', (input, path, message) => {
    let error: unknown;
    try {
      breakerStoreSettings(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path });
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('gives a local endpoint a region and dummy keys; AWS gets the SDK chain', () => {
    expect(breakerStoreSettings({ env: LOCAL }).connection).toEqual({
      endpoint: 'http://127.0.0.1:4567',
      region: 'us-east-1',
      credentials: { accessKeyId: 'switchyard-local', secretAccessKey: 'switchyard-local' },
    });
    expect(breakerStoreSettings({ env: {} }).connection).toEqual({
      endpoint: undefined,
      region: undefined,
      credentials: undefined,
    });
    expect(
      breakerStoreSettings({
        env: { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' },
      }).connection,
    ).toMatchObject({ region: 'eu-west-1', credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' } });
  });

  it.each([
    [undefined, true],
    ['https://dynamodb.eu-west-1.amazonaws.com', true],
    ['https://dynamodb.cn-north-1.amazonaws.com.cn', true],
    ['https://dynamodb.us-east-1.api.aws', true],
    ['http://127.0.0.1:4567', false],
    ['http://localhost:8000', false],
    ['http://amazonaws.com.evil.test', false],
  ])('knows %s is AWS: %s', (endpoint, aws) => {
    expect(isAwsEndpoint(endpoint)).toBe(aws);
  });
});

describe('selecting a breaker store', () => {
  it('builds memory, DynamoDB, and DynamoDB behind a read cache', async () => {
    const memory = await selectBreakerStore(breakerStoreSettings({ env: {} }));
    expect(memory.store).toBeInstanceOf(MemoryBreakerStore);
    expect(memory.description).toBe('memory');

    const plain = await selectBreakerStore(
      breakerStoreSettings({ env: { ...LOCAL, SWITCHYARD_STORE: 'dynamodb' } }),
    );
    expect(plain.store).toBeInstanceOf(DynamoDbBreakerStore);
    expect(plain.description).toBe(
      "dynamodb table 'switchyard-breakers' (default name; set SWITCHYARD_TABLE) at http://127.0.0.1:4567, read cache off",
    );
    plain.close();

    const cached = await selectBreakerStore(
      breakerStoreSettings({
        env: {
          ...LOCAL,
          SWITCHYARD_STORE: 'dynamodb',
          SWITCHYARD_TABLE: 'team-bt',
          SWITCHYARD_BREAKER_CACHE_MS: '1000',
        },
      }),
    );
    expect(cached.store).toBeInstanceOf(CachedBreakerStore);
    expect(cached.description).toBe("dynamodb table 'team-bt' at http://127.0.0.1:4567, read cache 1000 ms");
    cached.close();
  });
});
