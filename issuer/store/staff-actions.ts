/**
 * The kiosks' staff records (table staff_actions; docs/protocol.md "Scanner heartbeat"): each one a record of a
 * kiosk's chained audit log that its heartbeat carried, kept once per kiosk and record (scanner id, position and
 * hash) however often it is sent. Read by the dashboard's "Staff actions" list and by `checkins export`
 * (who overrode the attention prompt of an admission).
 */
import type { StaffActionReport } from '../../protocol/staff-actions.js';
import type { Sql } from './sql.js';

/** A stored staff record. */
export interface StaffActionRow {
  api_key_id: string;
  scanner_id: string;
  eid: string;
  position: number;
  hash: string;
  at: string;
  event: string;
  staff_id: string | null;
  name: string | null;
  role: string;
  via: string | null;
  call: string | null;
  needs: string | null;
  tid: string | null;
  received_at: string;
}

/** A stored staff record with its kiosk's name and gate, as the dashboard lists it. */
export interface StaffActionListRow extends StaffActionRow {
  id: number;
  scanner_name: string | null;
  gate_id: string | null;
}

/** Where a heartbeat came from: its key, scanner and event, and when it came. */
export interface StaffActionSource {
  api_key_id: string;
  scanner_id: string;
  eid: string;
  received_at: string;
}

/**
 * Keeps the records a heartbeat carried, each once (a record sent again is ignored), in the caller's write
 * transaction. Returns the highest position among them, all of which are now stored, or null for none.
 */
export async function recordStaffActions(
  tx: Sql,
  source: StaffActionSource,
  reports: readonly StaffActionReport[],
): Promise<number | null> {
  for (const report of reports) {
    const row: StaffActionRow = {
      ...source,
      position: report.position,
      hash: report.hash,
      at: report.at,
      event: report.event,
      staff_id: report.staff_id,
      name: report.name,
      role: report.role,
      via: report.via,
      call: report.call ?? null,
      needs: report.needs ?? null,
      tid: report.tid ?? null,
    };
    await tx.run(
      `INSERT INTO staff_actions (api_key_id, scanner_id, eid, position, hash, at, event, staff_id, name, role, via, call, needs, tid, received_at)
       VALUES (@api_key_id, @scanner_id, @eid, @position, @hash, @at, @event, @staff_id, @name, @role, @via, @call, @needs, @tid, @received_at)
       ON CONFLICT (scanner_id, position, hash) DO NOTHING`,
      { ...row },
    );
  }
  return reports.length === 0 ? null : Math.max(...reports.map((report) => report.position));
}

/** The event's staff records, newest first (by the kiosk's time, then as received), at most `limit`. */
export async function staffActionsOf(db: Sql, eid: string, limit: number): Promise<StaffActionListRow[]> {
  const rows = await db.all<StaffActionListRow>(
    `SELECT s.*, k.scanner_name AS scanner_name, k.gate_id AS gate_id
     FROM staff_actions s LEFT JOIN api_keys k ON k.api_key_id = s.api_key_id
     WHERE s.eid = ? ORDER BY s.at DESC, s.id DESC LIMIT ?`,
    [eid, limit],
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), position: Number(row.position) }));
}

/** An attention override a kiosk recorded (docs/kiosk.md "Attention notes"): which kiosk, which ticket, when, by whom. */
export interface AttentionOverrideRow {
  scanner_id: string;
  tid: string;
  at: string;
  staff_id: string | null;
}

/** The event's attention overrides with a ticket, oldest first. */
export function attentionOverridesOf(db: Sql, eid: string): Promise<AttentionOverrideRow[]> {
  return db.all<AttentionOverrideRow>(
    `SELECT scanner_id, tid, at, staff_id FROM staff_actions
     WHERE eid = ? AND event = 'attention_override' AND tid IS NOT NULL ORDER BY at, id`,
    [eid],
  );
}
