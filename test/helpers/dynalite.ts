import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createBreakerDynamoDbClient, createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbBreakerStore } from '../../lambda/stores/dynamodb-breaker-store.js';

interface DynaliteOptions {
  /** How long a new table stays CREATING, in ms (dynalite's default is 500). */
  createTableMs?: number;
}

// dynalite is CommonJS without types; its factory returns a plain node:http server.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

export interface RunningDynalite {
  /** e.g. `http://127.0.0.1:40123`: pass as `endpoint` or `AWS_ENDPOINT_URL_DYNAMODB`. */
  endpoint: string;
  port: number;
  /** Stops it, cutting open keep-alive connections so that clients see the outage at once. */
  stop(): Promise<void>;
}

/** dynalite in memory on 127.0.0.1, on a free port. Tables become ACTIVE at once. */
export async function startDynalite(options: DynaliteOptions = {}): Promise<RunningDynalite> {
  const server = dynalite({ createTableMs: 0, ...options });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop() {
      stopping ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

const DYNALITE_ENV_KEYS = { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' };

/** Dummy credentials and region for processes talking to dynalite (it checks no signature). */
export const DYNALITE_ENV = {
  AWS_ACCESS_KEY_ID: DYNALITE_ENV_KEYS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: DYNALITE_ENV_KEYS.secretAccessKey,
  AWS_REGION: 'us-east-1',
} as const;

/** DynamoDB commands sent, by name (`QueryCommand`, `UpdateItemCommand`…), one per `send`. */
export type CommandCounts = Map<string, number>;

/**
 * Counts every command `client` sends, with an `initialize`-step middleware: once per `send`,
 * SDK retries not included. Returns the live counts.
 */
export function countCommands(client: DynamoDBClient): CommandCounts {
  const counts: CommandCounts = new Map();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'switchyardCountCommands' },
  );
  return counts;
}

let tables = 0;

/** A store on a fresh breaker table in `dynalite`, its client's command counts, and more handles. */
export async function openBreakerTable(dynalite: RunningDynalite, options: { tableName?: string } = {}) {
  const tableName = options.tableName ?? `breakers-${process.pid}-${++tables}`;
  const connection = { endpoint: dynalite.endpoint, region: 'us-east-1', credentials: DYNALITE_ENV_KEYS };
  const clients: DynamoDBClient[] = [];
  const connect = () => {
    const client = createBreakerDynamoDbClient(connection);
    clients.push(client);
    const counts = countCommands(client);
    return {
      store: createDynamoDbBreakerStore({ client: createDocumentClient(client), tableName }),
      client,
      counts,
    };
  };
  const first = connect();
  await ensureBreakerTable(first.client, tableName);
  first.counts.clear();
  return {
    tableName,
    ...first,
    /** Another store on the same table, with its own client: another Lambda container. */
    connect,
    close: () => {
      for (const client of clients) client.destroy();
    },
  };
}
