/**
 * `ticket-issuer migrate`: applies the pending schema migrations to an
 * initialised data dir (docs/issuer.md "Upgrading: migrate"). The admin
 * commands and `init` still migrate on open as before; `serve` does not, and
 * asks for this step instead.
 */
import { isInitialised, requireIssuerDataDir, resolveDataDir } from '../data-dir.js';
import { migrate, openDatabase, schemaVersion, type Migration } from '../store/database.js';
import { notInitialised } from './issuer-context.js';

export function migrateDataDir(dataOption: string | undefined): Migration {
  const dataDir = resolveDataDir(dataOption);
  // A node's database is the issuer's: migrate it from the issuer's data dir (docs/issuer.md "Serving nodes").
  requireIssuerDataDir(dataDir);
  if (!isInitialised(dataDir)) throw notInitialised(dataDir);
  // Opened without migrating, so the versions before and after are this command's own.
  const db = openDatabase(dataDir.database, { migrate: false });
  try {
    // An empty database file (an init that stopped early) is no issuer to migrate.
    if (schemaVersion(db) === 0) throw notInitialised(dataDir);
    return migrate(db);
  } finally {
    db.close();
  }
}
