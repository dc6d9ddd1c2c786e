import type { AdmissionStore } from '../core/admission/admission-store.js';

/** What {@link tableRestoringAdmissionStore} needs besides the store. */
export interface TableRestoring {
  /** Creates the table again (`ensureBreakerTable` on a local endpoint). */
  restore: () => Promise<unknown>;
  /** Hears each restoration that ran: `created` when the table came back, else the error's name. */
  onRestore?: ((outcome: { ok: true } | { ok: false; error: string }) => void) | undefined;
}

const isMissingTable = (error: unknown) =>
  error instanceof Error && error.name === 'ResourceNotFoundException';

/**
 * An admission store on a local endpoint whose table `serve` prepared at start: when a call finds
 * the table gone (deleted while the gateway runs), the table is created again in the background,
 * once however many calls notice, as a restart would have done. The call that noticed still fails
 * (its limit's store-failure policy decides: spend fails closed); the next one after the table is
 * ACTIVE is admitted again. Counters start from zero in the new table, as they would after a
 * restart: the old ones went with the table. In AWS the stack owns the table and nothing is created.
 */
export function tableRestoringAdmissionStore(
  store: AdmissionStore,
  restoring: TableRestoring,
): AdmissionStore {
  let busy = false;
  const restore = () => {
    if (busy) return;
    busy = true;
    restoring
      .restore()
      .then(
        () => restoring.onRestore?.({ ok: true }),
        (error: unknown) =>
          restoring.onRestore?.({ ok: false, error: error instanceof Error ? error.name : 'unknown' }),
      )
      .finally(() => {
        busy = false;
      });
  };
  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (isMissingTable(error)) restore();
        throw error;
      }
    };
  return {
    read: guarded((counter, fromBucket, now) => store.read(counter, fromBucket, now)),
    take: guarded((slot, amount, ceiling) => store.take(slot, amount, ceiling)),
    add: guarded((slot, delta) => store.add(slot, delta)),
  };
}
