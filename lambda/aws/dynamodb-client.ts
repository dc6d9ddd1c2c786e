import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentials } from './aws-env.js';
import { storeRetryStrategy } from './store-retry-strategy.js';

/** Where and as whom to reach DynamoDB. Anything left out comes from the AWS SDK's own chain. */
export interface DynamoDbConnection {
  /** e.g. `http://127.0.0.1:4567` for dynalite; absent for AWS itself. */
  endpoint?: string | undefined;
  region?: string | undefined;
  credentials?: AwsCredentials;
}

/**
 * Bounds on one store call. Breaker bookkeeping sits on every attempt's path, so a sick table
 * must cost a request little: one retry, only when the first call surely left no trace
 * (throttled, or never connected: `storeRetryStrategy`), 1 s to connect, 1 s to answer. A store
 * call that still fails is reported and routed around (`createBreakers`).
 */
export const STORE_CALL_LIMITS = { maxAttempts: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 1_000 };

/** A DynamoDB client for breaker bookkeeping, with `STORE_CALL_LIMITS`. */
export function createBreakerDynamoDbClient(connection: DynamoDbConnection = {}): DynamoDBClient {
  return new DynamoDBClient({
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    ...(connection.region ? { region: connection.region } : {}),
    ...(connection.credentials ? { credentials: connection.credentials } : {}),
    retryStrategy: storeRetryStrategy(STORE_CALL_LIMITS.maxAttempts),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: STORE_CALL_LIMITS.connectionTimeoutMs,
      requestTimeout: STORE_CALL_LIMITS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
}

/** The document client the store uses: plain JS values in and out, `undefined` attributes dropped. */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * True when `endpoint` is AWS itself (or absent, which means AWS). Anything else (dynalite,
 * DynamoDB Local, a test double) is a local endpoint, where Switchyard may create its table.
 */
export function isAwsEndpoint(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return true;
  const host = new URL(endpoint).hostname.toLowerCase();
  return /(^|\.)amazonaws\.com(\.cn)?$/.test(host) || /(^|\.)api\.aws$/.test(host);
}
