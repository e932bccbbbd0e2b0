/**
 * `ticket-issuer migrate`: applies the pending schema migrations to an
 * initialised data dir's database, SQLite or PostgreSQL (docs/issuer.md
 * "Upgrading: migrate"). The admin commands and `init` still migrate on open
 * as before; `serve` does not, and asks for this step instead.
 */
import { isInitialised, requireIssuerDataDir, resolveDataDir } from '../data-dir.js';
import { migrateIssuerDatabase, openIssuerDatabase } from '../store/open.js';
import { notInitialised } from './issuer-context.js';

export interface Migration {
  /** The schema version before and after; equal when there was nothing to do. */
  from: number;
  to: number;
}

export async function migrateDataDir(dataOption: string | undefined): Promise<Migration> {
  const dataDir = resolveDataDir(dataOption);
  // A node's database is the issuer's: migrate it from the issuer's data dir (docs/issuer.md "Serving nodes").
  requireIssuerDataDir(dataDir);
  if (!isInitialised(dataDir)) throw notInitialised(dataDir);
  // Opened without migrating, so the versions before and after are this command's own.
  const { database, schemaVersion } = await openIssuerDatabase(dataDir, { schema: 'as-is' });
  try {
    // An empty database (an init that stopped early) is no issuer to migrate.
    if (schemaVersion === 0) throw notInitialised(dataDir);
    return await migrateIssuerDatabase(database);
  } finally {
    await database.close();
  }
}
