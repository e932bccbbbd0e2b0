/**
 * Whether this process can take traffic (GET /readyz, docs/protocol.md
 * "Health and readiness"): the database answers one trivial read and holds an
 * issuer. Cheap on purpose (a load balancer asks every few seconds, and anyone
 * may ask): one indexed read of a one-row table, no write. The schema version
 * is the one `serve` checked at start (it refuses any other).
 *
 * The read cannot hang the event loop on a writer: in WAL mode a reader never
 * waits for the write lock (issuer/store/database.ts).
 */
import type { NotReadyReason } from '../error-catalogue.js';
import type { SqlDatabase } from '../store/sql.js';
import { hasIssuerInfo } from '../store/issuer-info.js';

export type Readiness = { ready: true; schemaVersion: number } | { ready: false; reason: NotReadyReason; cause?: unknown };

export async function checkReadiness(database: SqlDatabase, schemaVersion: number): Promise<Readiness> {
  if (database.unusable) return { ready: false, reason: 'database_unavailable', cause: database.unusable };
  try {
    if (!(await hasIssuerInfo(database.read))) return { ready: false, reason: 'not_initialised' };
    return { ready: true, schemaVersion };
  } catch (error) {
    // A closed connection, a damaged or vanished file, an I/O error: not ready, and the cause goes to the log only.
    return { ready: false, reason: 'database_unavailable', cause: error };
  }
}
