/**
 * The rules every database's schema version is held to, SQLite and
 * PostgreSQL alike (docs/issuer.md "Upgrading: migrate"): a newer schema than
 * this program knows is refused untouched; `serve` also refuses an older one
 * and asks for `ticket-issuer migrate`.
 */
import { AdminError } from '../error-catalogue.js';

/** A database newer than this program: upgrade the program, never downgrade the data. */
export function schemaTooNew(version: number, known: number): AdminError {
  return new AdminError(
    'SCHEMA_TOO_NEW',
    `the database's schema is version ${version}, this ticket-issuer knows up to version ${known}: upgrade ticket-issuer`,
  );
}

/** The schema must be exactly `known`: newer, upgrade the program; older, run `ticket-issuer migrate` first. */
export function requireSchema(version: number, known: number): void {
  if (version > known) throw schemaTooNew(version, known);
  if (version < known) {
    throw new AdminError(
      'SCHEMA_OUTDATED',
      `the database's schema is version ${version}, this ticket-issuer needs version ${known}: run "ticket-issuer migrate" first (with the same --data)`,
    );
  }
}
