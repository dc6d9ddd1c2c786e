import { createBreakerDynamoDbClient, createDocumentClient, isAwsEndpoint } from '../aws/dynamodb-client.js';
import type { AdmissionStore } from '../core/admission/admission-store.js';
import type { Clock } from '../core/time.js';
import { ensureBreakerTable } from './create-breaker-table.js';
import { createDynamoDbAdmissionStore } from './dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from './memory-admission-store.js';
import type { BreakerStoreSettings } from './select-breaker-store.js';
import { type TableRestoring, tableRestoringAdmissionStore } from './table-restoring-admission-store.js';

/** An admission store and how to release it. */
export interface SelectedAdmissionStore {
  store: AdmissionStore;
  close(): void;
}

/**
 * Admission counters where the breakers are: in memory for a memory breaker store, else in the
 * same DynamoDB table (items under `admission#…`), with a client of their own bounded like the
 * breaker client's (one retry, only when the first call surely left no trace). The table itself is
 * prepared by the breaker store's selection (locally) or the CDK stack (AWS). With `restoreTable`,
 * a table on a local endpoint that goes missing while the gateway runs is created again
 * (`serve` prepared it at start, and would again on a restart); never on AWS's own endpoints.
 */
export function selectAdmissionStore(
  settings: BreakerStoreSettings,
  clock: Clock,
  options: { restoreTable?: Pick<TableRestoring, 'onRestore'> } = {},
): SelectedAdmissionStore {
  if (settings.kind === 'memory') return { store: createMemoryAdmissionStore(clock), close() {} };
  const client = createBreakerDynamoDbClient(settings.connection);
  const store = createDynamoDbAdmissionStore({
    client: createDocumentClient(client),
    tableName: settings.tableName,
  });
  const local = !isAwsEndpoint(settings.connection.endpoint);
  return {
    store:
      options.restoreTable && local
        ? tableRestoringAdmissionStore(store, {
            restore: () => ensureBreakerTable(client, settings.tableName),
            onRestore: options.restoreTable.onRestore,
          })
        : store,
    close: () => client.destroy(),
  };
}
