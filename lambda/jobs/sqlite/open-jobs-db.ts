import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The part of `node:sqlite`'s prepared statement the job store uses. */
export interface SqliteStatement {
  run(...params: SqliteValue[]): { changes: number | bigint };
  get(...params: SqliteValue[]): Record<string, unknown> | undefined;
  all(...params: SqliteValue[]): Record<string, unknown>[];
}

/** A value bound to a statement parameter. */
export type SqliteValue = string | number | null;

/** The part of `node:sqlite`'s `DatabaseSync` the job store uses. */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/**
 * `synchronous` of the jobs database. In WAL mode NORMAL writes each commit to the WAL (into the
 * OS) before the call returns and fsyncs at checkpoints: a killed process (SIGKILL, OOM, crash)
 * loses nothing, and an OS crash or power cut can roll back only the last commits, never corrupt
 * the file. FULL would fsync every commit, and `node:sqlite` is synchronous, so that fsync would
 * stall the event loop, i.e. every caller of the gateway, on each job state change: measured
 * 0.15-4.5 ms per commit with FULL against 0.03-0.17 ms with NORMAL on the shared development VM
 * (`npx tsx bench/jobs-db/run.ts`). A local gateway's job must survive its process, which NORMAL gives.
 */
export const JOBS_DB_SYNCHRONOUS = 'NORMAL';

/** How long a statement waits for another process's write lock, in ms. */
export const JOBS_DB_BUSY_TIMEOUT_MS = 5_000;

/** The schema version this code writes (`PRAGMA user_version`). */
const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  job_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  record TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_by_expiry ON jobs (expires_at);
CREATE INDEX IF NOT EXISTS jobs_by_age ON jobs (created_at, status, bytes);
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (json_extract(record, '$.owner'), status, expires_at);
CREATE TABLE IF NOT EXISTS job_links (
  public_id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS job_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  visible_at INTEGER NOT NULL,
  receive_count INTEGER NOT NULL DEFAULT 0,
  handle TEXT,
  dead INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS job_messages_ready ON job_messages (dead, visible_at);
CREATE INDEX IF NOT EXISTS job_messages_by_handle ON job_messages (handle);
`;

const SQLITE_WARNING = /^SQLite is an experimental feature/;

/**
 * Loads `node:sqlite` without its one-time ExperimentalWarning. Node 24 before 24.15 (and 22)
 * print "SQLite is an experimental feature and might change at any time" on stderr when the
 * module is first loaded; `serve` would show it on every start although nothing is wrong, and
 * `--no-warnings` would hide every other warning too. So only that one warning, only while this
 * module loads, is dropped; every other warning passes through. The Node the project installs
 * (24.22.3; 24.18.1 on macOS x64) no longer warns — 24.15.0 made sqlite a release candidate — so
 * there the filter does nothing; it stays for a machine that brings its own older Node 24.
 */
export function loadSqlite(): { DatabaseSync: new (path: string) => SqliteDatabase } {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const name = typeof warning === 'string' ? type : warning.name;
    if (name === 'ExperimentalWarning' && SQLITE_WARNING.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    // A require, not an import: the warning is emitted while the module loads, inside this try.
    return createRequire(import.meta.url)('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * Opens (creating the file, mode 0600, and its folder, 0700, when missing) the jobs database at `path`: WAL journal,
 * `synchronous=NORMAL` ({@link JOBS_DB_SYNCHRONOUS}), a busy timeout so that two processes on one
 * file take turns, and the schema. Throws when the file is not a jobs database of this version.
 */
export function openJobsDb(path: string): SqliteDatabase {
  if (path !== ':memory:') {
    // The file holds prompts and answers: a new folder and file are the owner's only (SQLite gives
    // its -wal and -shm files the database file's permissions). An existing file keeps its own.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${JOBS_DB_BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${JOBS_DB_SYNCHRONOUS}`);
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `${path} holds jobs of a newer Switchyard (schema ${version}; this one reads ${SCHEMA_VERSION})`,
      );
    }
    immediate(db, () => {
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Runs `fn` in one `BEGIN IMMEDIATE` transaction: it takes the write lock first, so a read and
 * the write that depends on it are one step for every process on the file (what a conditional
 * write is in DynamoDB). Rolled back when `fn` throws.
 */
export function immediate<T>(db: SqliteDatabase, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
