/** The dashboard's admin token: one row, its SHA-256 hash only (docs/issuer.md "Admin dashboard"). */
import type { Db } from './database.js';

export interface AdminTokenRow {
  token_hash: string;
  created_at: string;
}

/** Read on every admin request, so `ticket-issuer admin-token reset` in another process applies at once. */
export function findAdminToken(db: Db): AdminTokenRow | undefined {
  return db.prepare('SELECT token_hash, created_at FROM admin_token WHERE singleton = 1').get() as AdminTokenRow | undefined;
}

/** Sets the token, replacing any earlier one (which stops working at once). */
export function setAdminToken(db: Db, row: AdminTokenRow): void {
  db.prepare(
    `INSERT INTO admin_token (singleton, token_hash, created_at) VALUES (1, @token_hash, @created_at)
     ON CONFLICT (singleton) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
  ).run(row);
}
