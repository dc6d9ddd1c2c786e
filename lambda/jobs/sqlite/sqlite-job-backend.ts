import type { SwitchyardConfig } from '../../config/switchyard-config.js';
import { createCatalog } from '../../core/catalog/catalog.js';
import { ConfigError } from '../../core/errors.js';
import { jobLeaseMs } from '../../core/jobs/job-lease.js';
import type { Clock } from '../../core/time.js';
import { LOCAL_VISIBILITY_SECONDS, type LocalJobBackend } from '../runner/select-job-backend.js';
import { JOBS_DB_SYNCHRONOUS, openJobsDb } from './open-jobs-db.js';
import { createSqliteJobQueue } from './sqlite-job-queue.js';
import { createSqliteJobStore } from './sqlite-job-store.js';

/**
 * The durable local backend: store and queue in one SQLite file at `path` (absolute; `shown` is
 * how the output names it). A received message stays hidden at least as long as a claim's lease,
 * so that after a crash the message comes back when the dead worker's lease has ended and the job
 * runs again at once, instead of finding it busy and spending receives towards the dead-letter queue.
 */
export function openSqliteJobBackend(options: {
  config: SwitchyardConfig;
  clock: Clock;
  path: string;
  shown: string;
  /** The setting that named the file, for the error when it cannot be opened. */
  field: string;
}): LocalJobBackend {
  const { config, clock, path } = options;
  let db: ReturnType<typeof openJobsDb>;
  try {
    db = openJobsDb(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(options.field, `cannot open the jobs database ${path}: ${reason}`);
  }
  const leaseSeconds = Math.ceil(jobLeaseMs(createCatalog(config)) / 1000);
  const store = createSqliteJobStore({ db, clock });
  const queue = createSqliteJobQueue({
    db,
    clock,
    maxReceiveCount: config.jobs.maxReceiveCount,
    visibilityTimeoutSeconds: Math.max(LOCAL_VISIBILITY_SECONDS, leaseSeconds + 1),
  });
  return {
    kind: 'sqlite',
    store,
    queue,
    consumer: queue,
    description: `sqlite ${options.shown} (durable: jobs survive a restart; WAL, synchronous=${JOBS_DB_SYNCHRONOUS})`,
    close: () => db.close(),
  };
}
