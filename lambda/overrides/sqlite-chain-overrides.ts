import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ChainVersion, pickRollbackTarget } from '../aws/ssm-chains.js';
import { immediate, loadSqlite, type SqliteDatabase } from '../jobs/sqlite/open-jobs-db.js';
import type { ChainOverrideStore } from './chain-override-store.js';

/** Versions kept per pipeline, as SSM keeps 100; older ones are dropped. */
const KEPT_VERSIONS = 100;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chain_versions (
  pipeline TEXT NOT NULL,
  version INTEGER NOT NULL,
  value TEXT NOT NULL,
  modified INTEGER NOT NULL,
  description TEXT,
  PRIMARY KEY (pipeline, version)
) STRICT;
`;

/** A local store that also closes its file. */
export interface LocalChainOverrides extends ChainOverrideStore {
  close(): void;
}

/**
 * Operator overrides of a local gateway in one SQLite file (default `.switchyard/overrides.db`),
 * behaving as SSM's `<prefix>/chains/<pipeline>` does: every write a new version with its
 * description, at most {@link KEPT_VERSIONS} kept, a delete takes the history with it, a rollback
 * writes an earlier value as a new version. `switchyard serve` reads its chains from here (between
 * `MODEL_<P>` and the config) when the operator console is on. `now` gives ms since epoch.
 */
export function createSqliteChainOverrides(path: string, now: () => number): LocalChainOverrides {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const { DatabaseSync } = loadSqlite();
  const db: SqliteDatabase = new DatabaseSync(path);
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(SCHEMA);
  const latest = db.prepare(
    'SELECT version, value, modified, description FROM chain_versions WHERE pipeline = ? ORDER BY version DESC LIMIT 1',
  );
  const all = db.prepare(
    'SELECT version, value, modified, description FROM chain_versions WHERE pipeline = ? ORDER BY version DESC',
  );
  const insert = db.prepare(
    'INSERT INTO chain_versions (pipeline, version, value, modified, description) VALUES (?, ?, ?, ?, ?)',
  );
  const prune = db.prepare('DELETE FROM chain_versions WHERE pipeline = ? AND version <= ?');
  const remove = db.prepare('DELETE FROM chain_versions WHERE pipeline = ?');

  const version = (row: Record<string, unknown>): ChainVersion => ({
    version: Number(row.version),
    chain: String(row.value),
    modified: new Date(Number(row.modified)),
    by: undefined,
    description: row.description === null ? undefined : String(row.description),
  });
  const current = async (pipeline: string) => {
    const row = latest.get(pipeline);
    return row ? version(row) : undefined;
  };
  const put = async (pipeline: string, chain: string, description?: string) =>
    immediate(db, () => {
      const next = Number(latest.get(pipeline)?.version ?? 0) + 1;
      insert.run(pipeline, next, chain, now(), description ?? `chain of pipeline ${pipeline}`);
      prune.run(pipeline, next - KEPT_VERSIONS);
      return next;
    });
  const history = async (pipeline: string) => all.all(pipeline).map(version);

  return {
    parameterName: (pipeline) => `chains/${pipeline}`,
    current,
    get: async (pipeline) => (await current(pipeline))?.chain,
    put,
    delete: async (pipeline) => Number(remove.run(pipeline).changes) > 0,
    history,
    async rollback(pipeline, options = {}) {
      const versions = await history(pipeline);
      const to = pickRollbackTarget(versions, options.toVersion);
      options.check?.(to);
      const from = versions[0] as ChainVersion;
      const description = options.description?.(to) ?? `rollback of ${pipeline} to version ${to.version}`;
      return { from, to, version: await put(pipeline, to.chain, description) };
    },
    close: () => db.close(),
  };
}
