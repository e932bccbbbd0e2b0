/**
 * Staff badges as the CLI and the dashboard list and revoke them (docs/issuer.md "Staff roles and badges"), so
 * both behave and fail the same way. Issuing signs, so it is an admin operation (issuer/admin/staff-badges.ts).
 */
import type { StaffBadgeView } from '../dashboard-api.js';
import { AdminError } from '../error-catalogue.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql } from '../store/sql.js';
import { findStaffBadge, revokeStaffBadgeRow, type StaffBadgeRow } from '../store/staff-badges.js';
import { isoUtc } from '../time.js';

/** A badge as listed (the type is the dashboard's too). */
export type { StaffBadgeView };

export const staffBadgeView = (row: StaffBadgeRow): StaffBadgeView => ({
  sid: row.sid,
  eid: row.eid,
  name: row.name,
  role: row.role,
  not_before: isoUtc(new Date(row.nbf * 1000)),
  expires_at: isoUtc(new Date(row.exp * 1000)),
  issued_at: row.issued_at,
  revoked_at: row.revoked_at,
  revoked_reason: row.revoked_reason,
});

/** Refused by kiosks once they sync the revocation list; at once by the issuer. Revoking twice keeps the first time and reason. */
export async function revokeStaffBadge(db: Sql, sid: string, reason: string | null, now: Date): Promise<StaffBadgeView> {
  if (!(await revokeStaffBadgeRow(db, sid, reason, isoUtc(now))))
    throw new AdminError('STAFF_BADGE_NOT_FOUND', `no staff badge ${sid} at this issuer (see "ticket-issuer staff badge list")`);
  return staffBadgeView((await findStaffBadge(db, sid))!);
}

/** The dashboard's revocation as a write job, by name, so that it can run on the SQLite database thread (store/named-jobs.ts). */
export const revokeStaffBadgeWrite = namedJob('revoke-staff-badge', (db, args: { sid: string; reason: string | null; now: string }) =>
  revokeStaffBadge(db, args.sid, args.reason, new Date(args.now)),
);
