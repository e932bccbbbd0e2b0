/**
 * Check-out at a set time (docs/protocol.md "Check-out at a set time"): the event's setting (exit_all_settings)
 * and the exits it records, in the caller's transaction.
 */
import type { ExitAllSetting } from '../../protocol/exit-all.js';
import { appendChained } from './audit-log.js';
import { addOccupancy, appendAdmissionEvent } from './checkins.js';
import { WriteConflict, type Sql } from './sql.js';

export interface ExitAllRow extends ExitAllSetting {
  eid: string;
  /** The last moment whose exits are recorded, or null. */
  done: string | null;
}

export function exitAllOf(db: Sql, eid: string): Promise<ExitAllRow | undefined> {
  return db.get<ExitAllRow>('SELECT eid, at, time_zone, since, done FROM exit_all_settings WHERE eid = ?', [eid]);
}

export function eventsWithExitAll(db: Sql): Promise<ExitAllRow[]> {
  return db.all<ExitAllRow>('SELECT eid, at, time_zone, since, done FROM exit_all_settings ORDER BY eid');
}

/** Sets (or with null removes) the event's setting; a new setting starts now (`since`), with nothing done. */
export async function saveExitAll(db: Sql, eid: string, setting: ExitAllSetting | null): Promise<void> {
  if (setting === null) {
    await db.run('DELETE FROM exit_all_settings WHERE eid = ?', [eid]);
    return;
  }
  await db.run(
    `INSERT INTO exit_all_settings (eid, at, time_zone, since, done) VALUES (?, ?, ?, ?, NULL)
     ON CONFLICT (eid) DO UPDATE SET at = excluded.at, time_zone = excluded.time_zone, since = excluded.since, done = NULL`,
    [eid, setting.at, setting.time_zone, setting.since],
  );
}

/**
 * Claims `moment` as done for the event, only from the `done` the caller read: of two processes applying the same
 * moment, one claims it and the other gets WriteConflict, runs again and finds it done (exactly once).
 */
export async function claimMoment(db: Sql, row: ExitAllRow, moment: string): Promise<void> {
  const result =
    row.done === null
      ? await db.run('UPDATE exit_all_settings SET done = ? WHERE eid = ? AND since = ? AND done IS NULL', [moment, row.eid, row.since])
      : await db.run('UPDATE exit_all_settings SET done = ? WHERE eid = ? AND since = ? AND done = ?', [
          moment,
          row.eid,
          row.since,
          row.done,
        ]);
  if (result.changes !== 1) throw new WriteConflict(`the check-out at a set time of event ${row.eid}`);
}

const peopleOf = (row: InsideRow): number => (row.party_inside === null ? 1 : Number(row.party_inside));

interface InsideRow {
  tid: string;
  state_at: string;
  gate_id: string | null;
  version: number;
  ticket_type: string | null;
  /** A party's people inside (docs/protocol.md "Party tickets (project extension)"); null: one person. */
  party_inside: number | null;
}

/** A ticket checked out at a set time: what its `checkin.exited` webhook tells (docs/issuer.md "Webhooks"). */
export interface AutoExit {
  tid: string;
  ticket_type: string | null;
}

/**
 * Checks out every ticket of the event inside since before `moment` (or only `tid`): state `outside` at the
 * moment, an exit with reason `auto` in admission_events and the scan log, the occupancy counters. Returns the
 * tickets checked out.
 */
export async function exitInsideBefore(db: Sql, eid: string, moment: string, recordedAt: string, tid?: string): Promise<AutoExit[]> {
  const momentMs = Date.parse(moment);
  const rows = (
    await db.all<InsideRow>(
      `SELECT c.tid AS tid, c.state_at AS state_at, c.gate_id AS gate_id, c.version AS version, t.ticket_type AS ticket_type,
              c.party_inside AS party_inside
       FROM checkins c JOIN tickets t ON t.tid = c.tid
       WHERE t.eid = ? AND c.state = 'inside'${tid === undefined ? '' : ' AND c.tid = ?'}`,
      tid === undefined ? [eid] : [eid, tid],
    )
  ).filter((row) => Date.parse(row.state_at) < momentMs);
  // Compared as instants, not as text: a scanned_at may or may not carry milliseconds.
  for (const row of rows) {
    const changed = await db.run(
      "UPDATE checkins SET state = 'outside', state_at = ?, party_inside = CASE WHEN party_inside IS NULL THEN NULL ELSE 0 END, version = version + 1 WHERE tid = ? AND version = ?",
      [moment, row.tid, row.version],
    );
    if (changed.changes !== 1) throw new WriteConflict(`the admission of ticket ${row.tid}`);
    await appendAdmissionEvent(db, {
      tid: row.tid,
      eid,
      action: 'exit',
      at: moment,
      gate_id: null,
      scanner_id: null,
      api_key_id: null,
      idempotency_key: null,
      actor: 'auto',
      reason: 'auto',
      late: 0,
      admitted_offline: 0,
      ticket_type: row.ticket_type,
      recorded_at: recordedAt,
      staff_id: null,
      people: peopleOf(row) === 1 ? null : peopleOf(row),
    });
  }
  // Inside is counted at the gate of entry; the exits at no gate (nobody scanned them). A party counts its people.
  const byGate = new Map<string, number>();
  for (const row of rows) byGate.set(row.gate_id ?? '', (byGate.get(row.gate_id ?? '') ?? 0) + peopleOf(row));
  for (const [gate, count] of byGate) await addOccupancy(db, eid, gate === '' ? null : gate, { inside: -count }, 0);
  const people = rows.reduce((sum, row) => sum + peopleOf(row), 0);
  if (rows.length > 0) await addOccupancy(db, eid, null, { exits: people }, 0);
  // The audit log has every change of a ticket's state (docs/issuer.md "Audit: tamper-evident logs"); last, as it
  // takes the chain head's lock on PostgreSQL.
  await appendChained(
    db,
    rows.map((row) => ({
      at: recordedAt,
      scanned_at: moment,
      tid: row.tid,
      eid,
      scanner_id: null,
      api_key_id: null,
      gate_id: null,
      idempotency_key: null,
      outcome: 'exited',
      details: JSON.stringify({ check: 'exit_all', actor: 'auto', reason: 'auto' }),
    })),
  );
  return rows.map((row) => ({ tid: row.tid, ticket_type: row.ticket_type }));
}
