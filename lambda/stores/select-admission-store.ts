import { createBreakerDynamoDbClient, createDocumentClient } from '../aws/dynamodb-client.js';
import type { AdmissionStore } from '../core/admission/admission-store.js';
import type { Clock } from '../core/time.js';
import { createDynamoDbAdmissionStore } from './dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from './memory-admission-store.js';
import type { BreakerStoreSettings } from './select-breaker-store.js';

/** An admission store and how to release it. */
export interface SelectedAdmissionStore {
  store: AdmissionStore;
  close(): void;
}

/**
 * Admission counters where the breakers are: in memory for a memory breaker store, else in the
 * same DynamoDB table (items under `admission#…`), with a client of their own bounded like the
 * breaker client's (one retry, only when the first call surely left no trace). The table itself is
 * prepared by the breaker store's selection (locally) or the CDK stack (AWS).
 */
export function selectAdmissionStore(settings: BreakerStoreSettings, clock: Clock): SelectedAdmissionStore {
  if (settings.kind === 'memory') return { store: createMemoryAdmissionStore(clock), close() {} };
  const client = createBreakerDynamoDbClient(settings.connection);
  return {
    store: createDynamoDbAdmissionStore({
      client: createDocumentClient(client),
      tableName: settings.tableName,
    }),
    close: () => client.destroy(),
  };
}
