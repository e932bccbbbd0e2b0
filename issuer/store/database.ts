/**
 * The issuer's SQLite database: WAL, synchronous=FULL (a commit is on disk
 * before we answer), foreign keys on, and a busy timeout so the admin CLI and
 * `serve` can share one data dir (docs/protocol.md "The admin CLI").
 */
import Database from 'better-sqlite3';
import { schemaTooNew } from './schema-version.js';
import { CHAIN_MIGRATION, MIGRATIONS, SEARCH_NAME_MIGRATION } from './migrations.js';
import { fillSearchNamesSqlite } from './search-names-sqlite.js';
import { chainUnchainedRowsSqlite } from './audit-log.js';

/** The schema version this program writes and reads: one per migration. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export type Db = Database.Database;

// Prepared statements, kept per connection: preparing (parsing and planning the
// SQL) cost more CPU than running these small indexed queries, on every request.
// Keyed weakly, so a closed and dropped connection takes its statements with it;
// SQLite re-prepares a statement by itself if a migration changes the schema.
const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * `db.prepare(sql)`, prepared once per connection and reused afterwards. The
 * statement is shared: callers run it, never change its mode (pluck, raw, expand).
 */
export function prepareCached(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (cache === undefined) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

export interface OpenOptions {
  readonly?: boolean;
  /**
   * Apply pending migrations on open (default: yes, unless read-only). `serve`
   * opens without, and refuses an older schema instead (docs/issuer.md
   * "Upgrading: migrate").
   */
  migrate?: boolean;
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
  db.pragma('foreign_keys = ON');
  if (!options.readonly && (options.migrate ?? true)) {
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export interface Migration {
  /** The schema version before and after; equal when there was nothing to do. */
  from: number;
  to: number;
}

/** Applies the pending migrations; a database newer than this program is refused untouched. */
export function migrate(db: Db): Migration {
  // BEGIN IMMEDIATE: two processes opening a fresh data dir at once must not both migrate. The version is read
  // again inside, so the one that waited reports what it found after the other's commit.
  const apply = db.transaction((): Migration => {
    const from = schemaVersion(db);
    if (from > SCHEMA_VERSION) throw schemaTooNew(from, SCHEMA_VERSION);
    for (let version = from; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]!);
      // Migration 4 made scan_log a hash chain: the rows from before it are chained now, in id order.
      if (version + 1 === CHAIN_MIGRATION) chainUnchainedRowsSqlite(db);
      if (version + 1 === SEARCH_NAME_MIGRATION) fillSearchNamesSqlite(db);
      db.pragma(`user_version = ${version + 1}`);
    }
    return { from, to: schemaVersion(db) };
  });
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) throw schemaTooNew(current, SCHEMA_VERSION);
  // Up to date, the common case on every open: no write lock taken.
  if (current === SCHEMA_VERSION) return { from: current, to: current };
  return apply.immediate();
}
