/**
 * ID and age checks (docs/protocol.md "ID checks (project extension)"): a ticket type's check in
 * ticket_type_id_checks, and a ticket's date of birth in its row. A date of birth never leaves this database as a
 * date: the synced list carries the age band it gives for the type's N. A change of either takes numbers of the note
 * sequence (store/attention-notes.ts), so the synced list's cursor brings the new band to the kiosks.
 */
import { ageBand, formatIdCheck, parseIdCheck, type AgeBand, type IdCheckRule } from '../../protocol/id-check.js';
import { takeNoteNumbers } from './attention-notes.js';
import type { Sql } from './sql.js';

export interface TypeIdCheck {
  ticket_type: string;
  id_check: string;
}

/**
 * Gives each ticket a new number of the note sequence, in one transaction (their bands may have changed), so the
 * synced list brings them to the kiosks again; an import calls it for the dated tickets it brings.
 */
export async function renumber(tx: Sql, tids: readonly string[]): Promise<void> {
  if (tids.length === 0) return;
  let seq = await takeNoteNumbers(tx, tids.length);
  for (const tid of tids) await tx.run('UPDATE tickets SET note_seq = ? WHERE tid = ?', [seq++, tid]);
}

/** The type's tickets with a date of birth, whose bands its check gives. */
export async function datedTicketsOf(tx: Sql, eid: string, ticketType: string): Promise<string[]> {
  const rows = await tx.all<{ tid: string }>('SELECT tid FROM tickets WHERE eid = ? AND ticket_type = ? AND dob IS NOT NULL ORDER BY tid', [
    eid,
    ticketType,
  ]);
  return rows.map((row) => row.tid);
}

/** Sets a type's check (`none` removes it); the type's tickets with a date of birth are listed again. */
export async function setTypeIdCheck(tx: Sql, eid: string, ticketType: string, rule: IdCheckRule, now: string): Promise<void> {
  const before = await typeIdCheckOf(tx, eid, ticketType);
  if (formatIdCheck(before ?? { kind: 'none' }) === formatIdCheck(rule)) return;
  if (rule.kind === 'none') await tx.run('DELETE FROM ticket_type_id_checks WHERE eid = ? AND ticket_type = ?', [eid, ticketType]);
  else
    await tx.run(
      `INSERT INTO ticket_type_id_checks (eid, ticket_type, id_check, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (eid, ticket_type) DO UPDATE SET id_check = excluded.id_check, updated_at = excluded.updated_at`,
      [eid, ticketType, formatIdCheck(rule), now],
    );
  await renumber(tx, await datedTicketsOf(tx, eid, ticketType));
}

export async function typeIdCheckOf(db: Sql, eid: string, ticketType: string | null): Promise<IdCheckRule | null> {
  if (ticketType === null) return null;
  const row = await db.get<{ id_check: string }>('SELECT id_check FROM ticket_type_id_checks WHERE eid = ? AND ticket_type = ?', [
    eid,
    ticketType,
  ]);
  return row ? parseIdCheck(row.id_check) : null;
}

/** Every type check of the event, by type. */
export function typeIdChecksOf(db: Sql, eid: string): Promise<TypeIdCheck[]> {
  return db.all<TypeIdCheck>('SELECT ticket_type, id_check FROM ticket_type_id_checks WHERE eid = ? ORDER BY ticket_type', [eid]);
}

/** Sets or clears (null) a ticket's date of birth; false when there is no such ticket. */
export async function setTicketDob(tx: Sql, tid: string, dob: string | null): Promise<boolean> {
  const row = await tx.get<{ dob: string | null }>('SELECT dob FROM tickets WHERE tid = ?', [tid]);
  if (!row) return false;
  if ((row.dob ?? null) === dob) return true;
  await tx.run('UPDATE tickets SET dob = ? WHERE tid = ?', [dob, tid]);
  await renumber(tx, [tid]);
  return true;
}

/**
 * The age bands of the listed tickets that have a date of birth and a type with an age check: [tid, band].
 * A listed ticket without a row has band `unknown` (docs/protocol.md "ID checks (project extension)").
 */
export async function bandsOf(db: Sql, eid: string, tids: readonly string[]): Promise<Array<[string, AgeBand]>> {
  if (tids.length === 0) return [];
  const bands: Array<[string, AgeBand]> = [];
  for (let start = 0; start < tids.length; start += 500) {
    const chunk = tids.slice(start, start + 500);
    const rows = await db.all<{ tid: string; dob: string; id_check: string; date: string }>(
      `SELECT t.tid, t.dob, ic.id_check, e.date FROM tickets t
       JOIN ticket_type_id_checks ic ON ic.eid = t.eid AND ic.ticket_type = t.ticket_type
       JOIN events e ON e.eid = t.eid
       WHERE t.eid = ? AND t.dob IS NOT NULL AND t.tid IN (${chunk.map(() => '?').join(', ')})`,
      [eid, ...chunk],
    );
    for (const row of rows) {
      const rule = parseIdCheck(row.id_check);
      if (rule?.kind === 'age') bands.push([row.tid, ageBand(row.dob, row.date, rule.min_age)]);
    }
  }
  return bands;
}
