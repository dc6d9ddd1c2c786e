/**
 * Key and TTL attribute names of the breaker table, shared by the store, the table creation for
 * local endpoints and the CDK construct, so the three can never disagree.
 */
export const BREAKER_TABLE_KEYS = {
  /** Partition key (S): the pipeline, so one Query returns every breaker of a pipeline. */
  partitionKey: 'pipeline',
  /** Sort key (S): the route key (the model key for a model's first route); one item per (pipeline, model, route). */
  sortKey: 'model',
  /** TTL attribute (N, epoch seconds). Every item carries it; readers also check it themselves. */
  ttlAttribute: 'expiresAt',
} as const;

/** Table name when `SWITCHYARD_TABLE` is not set. */
export const DEFAULT_BREAKER_TABLE = 'switchyard-breakers';
