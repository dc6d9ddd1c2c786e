/**
 * Counts the DynamoDB commands a client sends, by name (`Query`, `UpdateItem`, `BatchGetItem`…),
 * for the benches that report store calls per request or per attempt.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Counts every command `client` sends into `into` (a new map by default), which it returns. */
export function countDynamoDbCommands(
  client: DynamoDBClient,
  into: Map<string, number> = new Map(),
): Map<string, number> {
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
      into.set(name, (into.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCountCommands' },
  );
  return into;
}
