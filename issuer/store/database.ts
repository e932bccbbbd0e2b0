/**
 * The issuer's SQLite database: WAL, synchronous=FULL (a commit is on disk
 * before we answer), foreign keys on, and a busy timeout so the admin CLI and
 * `serve` can share one data dir (docs/protocol.md "The admin CLI").
 */
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

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

export function openDatabase(file: string, options: { readonly?: boolean } = {}): Db {
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
  db.pragma('foreign_keys = ON');
  if (!options.readonly) migrate(db);
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db): void {
  // BEGIN IMMEDIATE: two processes opening a fresh data dir at once must not both migrate.
  const apply = db.transaction(() => {
    for (let version = schemaVersion(db); version < MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  });
  if (schemaVersion(db) > MIGRATIONS.length) {
    throw new Error(
      `the database schema (version ${schemaVersion(db)}) is newer than this program (${MIGRATIONS.length}); upgrade ticket-issuer`,
    );
  }
  if (schemaVersion(db) < MIGRATIONS.length) apply.immediate();
}
