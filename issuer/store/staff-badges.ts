/** Staff badges (docs/issuer.md "Staff roles and badges"): one row per badge issued, revoked in place, never deleted. */
import type { StaffRole } from '../../protocol/access.js';
import { namedJob } from './named-jobs.js';
import type { Sql } from './sql.js';

export interface StaffBadgeRow {
  sid: string;
  eid: string;
  kid: string;
  name: string;
  role: StaffRole;
  /** Unix seconds, as in the code. */
  nbf: number;
  exp: number;
  /** The tstaff1. code itself, shown again like a ticket's. */
  qr: string;
  issued_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export async function insertStaffBadge(db: Sql, row: Omit<StaffBadgeRow, 'revoked_at' | 'revoked_reason'>): Promise<void> {
  await db.run(
    `INSERT INTO staff_badges (sid, eid, kid, name, role, nbf, exp, qr, issued_at)
     VALUES (@sid, @eid, @kid, @name, @role, @nbf, @exp, @qr, @issued_at)`,
    { ...row },
  );
}

/** The insert as a write job, by name, so that the dashboard's issuance runs on serve's SQLite database thread (named-jobs.ts). */
export const insertStaffBadgeWrite = namedJob('insert-staff-badge', (db, row: Omit<StaffBadgeRow, 'revoked_at' | 'revoked_reason'>) =>
  insertStaffBadge(db, row),
);

export function findStaffBadge(db: Sql, sid: string): Promise<StaffBadgeRow | undefined> {
  return db.get<StaffBadgeRow>('SELECT * FROM staff_badges WHERE sid = ?', [sid]);
}

/** The event's badges, in the order issued. */
export function staffBadgesOf(db: Sql, eid: string): Promise<StaffBadgeRow[]> {
  return db.all<StaffBadgeRow>('SELECT * FROM staff_badges WHERE eid = ? ORDER BY issued_at, sid', [eid]);
}

/** Revoking twice keeps the first time and reason. False: no such badge. */
export async function revokeStaffBadgeRow(db: Sql, sid: string, reason: string | null, now: string): Promise<boolean> {
  const result = await db.run(
    `UPDATE staff_badges SET revoked_reason = CASE WHEN revoked_at IS NULL THEN ? ELSE revoked_reason END,
                             revoked_at = COALESCE(revoked_at, ?) WHERE sid = ?`,
    [reason, now, sid],
  );
  return result.changes === 1;
}

/** The event's revoked badges, for the revocation list (docs/protocol.md "Revocation list (project extension)"). */
export function revokedBadgesOf(db: Sql, eid: string): Promise<{ sid: string; revoked_at: string }[]> {
  return db.all('SELECT sid, revoked_at FROM staff_badges WHERE eid = ? AND revoked_at IS NOT NULL ORDER BY revoked_at, sid', [eid]);
}
