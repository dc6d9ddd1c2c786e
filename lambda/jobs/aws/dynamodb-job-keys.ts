/**
 * Key and TTL attribute names of the jobs table, shared by the store, the table creation for
 * local endpoints and the CDK construct, so the three can never disagree.
 */
export const JOB_TABLE_KEYS = {
  /** Partition key (S): the durable job id; one item per job, no sort key. */
  partitionKey: 'jobId',
  /** TTL attribute (N, epoch seconds). Every item carries it; readers also check it themselves. */
  ttlAttribute: 'expiresAt',
} as const;

/** Table name when `SWITCHYARD_JOBS_TABLE` is not set. */
export const DEFAULT_JOB_TABLE = 'switchyard-jobs';
