import type { SsmChainStore } from '../aws/ssm-chains.js';

/**
 * Where operator overrides are kept and their history: SSM's `<prefix>/chains/<pipeline>` on AWS
 * (`createSsmChainStore`), a local SQLite file for `switchyard serve`
 * (`createSqliteChainOverrides`). Both behave alike: every write is a new version, a delete takes
 * the history with it, a rollback writes an earlier value as a new version.
 */
export type ChainOverrideStore = Omit<SsmChainStore, 'ssmPrefix'>;
