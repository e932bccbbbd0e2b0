/** The dashboard's admin token: one row, its SHA-256 hash only (docs/issuer.md "Admin dashboard"). */
import type { Sql } from './sql.js';

export interface AdminTokenRow {
  token_hash: string;
  created_at: string;
}

/** Read on every admin request, so `ticket-issuer admin-token reset` in another process applies at once. */
export function findAdminToken(db: Sql): Promise<AdminTokenRow | undefined> {
  return db.get<AdminTokenRow>('SELECT token_hash, created_at FROM admin_token WHERE singleton = 1');
}

/** Sets the token, replacing any earlier one (which stops working at once). */
export async function setAdminToken(db: Sql, row: AdminTokenRow): Promise<void> {
  await db.run(
    `INSERT INTO admin_token (singleton, token_hash, created_at) VALUES (1, @token_hash, @created_at)
     ON CONFLICT (singleton) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
    { ...row },
  );
}
