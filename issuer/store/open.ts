/**
 * Opening the issuer's database wherever the data dir says it is (docs/issuer.md
 * "Where the database is"): the SQLite file, or a PostgreSQL database shared by
 * several serving processes. Every command, `serve` and the on-site issuer open
 * it here, so they agree on the place and on the schema rules:
 *
 * - `migrate` (admin commands, init): pending migrations are applied on open;
 * - `require-current` (serve): the schema must be exactly the one this program
 *   knows; an older one waits for `ticket-issuer migrate`, so that a schema
 *   change is an operator's step, never a side effect of starting one of
 *   several serving processes ("Upgrading: migrate");
 * - `as-is` (migrate itself): opened untouched, so it can report from → to.
 */
import type { DataDir } from '../data-dir.js';
import { migrate, openDatabase, SCHEMA_VERSION, schemaVersion } from './database.js';
import { migratePostgres, POSTGRES_SCHEMA_VERSION, postgresSchemaVersion } from './postgres-migrations.js';
import { requireSchema } from './schema-version.js';
import type { SqlDatabase } from './sql.js';
import { SqliteDatabase } from './sqlite-database.js';
import { SqliteThreadDatabase } from './sqlite-thread.js';

export type SchemaPolicy = 'migrate' | 'require-current' | 'as-is';

export interface OpenedDatabase {
  database: SqlDatabase;
  /** The schema version after opening; 0 means an empty database that `init` never finished. */
  schemaVersion: number;
}

export interface OpenDatabaseOptions {
  schema?: SchemaPolicy;
  /** PostgreSQL connections this process keeps (default 10; a serving process may want more). */
  poolSize?: number;
  /**
   * SQLite only: write on a database thread of its own, started from this compiled script
   * (issuer/database-thread.js; sqlite-thread.ts), reading on this thread. `serve` does; commands do not.
   */
  sqliteThread?: URL;
}

export async function openIssuerDatabase(dataDir: DataDir, options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  const policy = options.schema ?? 'migrate';
  if (dataDir.postgres !== undefined) {
    // Loaded only for a PostgreSQL data dir: pg is a tenth of a second of every SQLite command's start otherwise.
    const { openPostgresDatabase } = await import('./postgres-database.js');
    const database = await openPostgresDatabase(dataDir.postgres, {
      applicationName: 'ticket-issuer',
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    });
    try {
      const version = policy === 'migrate' ? (await migratePostgres(database)).to : await postgresSchemaVersion(database.read);
      if (policy === 'require-current' && version !== 0) requireSchema(version, POSTGRES_SCHEMA_VERSION);
      return { database, schemaVersion: version };
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  const db = openDatabase(dataDir.database, { migrate: false });
  try {
    const version = policy === 'migrate' ? migrate(db).to : schemaVersion(db);
    if (policy === 'require-current' && version !== 0) requireSchema(version, SCHEMA_VERSION);
    const database =
      options.sqliteThread === undefined
        ? new SqliteDatabase(db)
        : await SqliteThreadDatabase.start(dataDir.database, options.sqliteThread, db);
    return { database, schemaVersion: version };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Applies the pending migrations of the data dir's database: `ticket-issuer migrate`. */
export async function migrateIssuerDatabase(database: SqlDatabase): Promise<{ from: number; to: number }> {
  if (database instanceof SqliteDatabase) return migrate(database.connection);
  return migratePostgres(database);
}

/** Where the database is, for logs and messages: the file, or the URL (which never holds a password). */
export function describeDatabase(dataDir: DataDir): string {
  return dataDir.postgres !== undefined ? `PostgreSQL ${dataDir.postgres}` : `SQLite ${dataDir.database}`;
}
