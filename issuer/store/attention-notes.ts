/**
 * Attention flags and check-in notes (docs/protocol.md "Attention notes (project extension)"): a ticket's own, in
 * its row, and a ticket type's, in ticket_type_notes. Every change of a ticket's flag or note takes the next number
 * of the note sequence in the changing transaction, exactly as revocations do (store/revocations.ts explains why a
 * row moved in the transaction, not a PostgreSQL SEQUENCE), so a kiosk's cursor misses nothing under concurrency.
 */
import type { AttentionRule, NoteRow, TypeRule } from '../../protocol/attention.js';
import type { Sql } from './sql.js';

export interface NoteSequence {
  last_seq: number;
  copy_id: string;
}

/** What a change sets: a field left out stays as it is; `note: null` removes the note. */
export interface AttentionChange {
  attention?: boolean;
  note?: string | null;
}

/** Takes `count` numbers of the note sequence; returns the first. Call in the changing write job. */
export async function takeNoteNumbers(tx: Sql, count: number): Promise<number> {
  await tx.run('UPDATE note_sequence SET last_seq = last_seq + ? WHERE singleton = 1', [count]);
  const row = await tx.get<{ last_seq: number }>('SELECT last_seq FROM note_sequence WHERE singleton = 1');
  if (!row) throw new Error('the note sequence is missing (run ticket-issuer migrate)');
  return Number(row.last_seq) - count + 1;
}

/**
 * Changes a ticket's flag and/or note; false when the ticket does not exist. A change that changes nothing
 * takes no number (a kiosk is sent nothing new).
 */
export async function setTicketAttention(tx: Sql, tid: string, change: AttentionChange): Promise<boolean> {
  const row = await tx.get<{ attention: number; note: string | null }>('SELECT attention, note FROM tickets WHERE tid = ?', [tid]);
  if (!row) return false;
  const attention = change.attention ?? Number(row.attention) === 1;
  const note = change.note === undefined ? row.note : change.note;
  if (attention === (Number(row.attention) === 1) && note === row.note) return true;
  const seq = await takeNoteNumbers(tx, 1);
  await tx.run('UPDATE tickets SET attention = ?, note = ?, note_seq = ? WHERE tid = ?', [attention ? 1 : 0, note, seq, tid]);
  return true;
}

/** A ticket's own rule, or null when it has neither flag nor note. */
export function ticketRuleOf(row: { attention?: number | null; note?: string | null }): AttentionRule | null {
  const attention = Number(row.attention ?? 0) === 1;
  const note = row.note ?? null;
  return attention || note !== null ? { attention, note } : null;
}

export async function ticketAttentionRow(db: Sql, tid: string): Promise<{ attention: number; note: string | null } | undefined> {
  return db.get('SELECT attention, note FROM tickets WHERE tid = ?', [tid]);
}

/** Sets a ticket type's rule; a rule with no flag and no note is removed. */
export async function setTypeRule(tx: Sql, eid: string, ticketType: string, rule: AttentionRule, now: string): Promise<void> {
  if (!rule.attention && rule.note === null) {
    await tx.run('DELETE FROM ticket_type_notes WHERE eid = ? AND ticket_type = ?', [eid, ticketType]);
    return;
  }
  await tx.run(
    `INSERT INTO ticket_type_notes (eid, ticket_type, attention, note, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (eid, ticket_type) DO UPDATE SET attention = excluded.attention, note = excluded.note, updated_at = excluded.updated_at`,
    [eid, ticketType, rule.attention ? 1 : 0, rule.note, now],
  );
}

export async function typeRuleOf(db: Sql, eid: string, ticketType: string | null): Promise<AttentionRule | null> {
  if (ticketType === null) return null;
  const row = await db.get<{ attention: number; note: string | null }>(
    'SELECT attention, note FROM ticket_type_notes WHERE eid = ? AND ticket_type = ?',
    [eid, ticketType],
  );
  return row ? { attention: Number(row.attention) === 1, note: row.note } : null;
}

/** Every type rule of the event, by type. */
export async function typeRulesOf(db: Sql, eid: string): Promise<TypeRule[]> {
  const rows = await db.all<{ ticket_type: string; attention: number; note: string | null }>(
    'SELECT ticket_type, attention, note FROM ticket_type_notes WHERE eid = ? ORDER BY ticket_type',
    [eid],
  );
  return rows.map((row) => ({ ticket_type: row.ticket_type, attention: Number(row.attention) === 1, note: row.note }));
}

export async function noteSequence(db: Sql): Promise<NoteSequence> {
  const row = await db.get<NoteSequence>('SELECT last_seq, copy_id FROM note_sequence WHERE singleton = 1');
  if (!row) throw new Error('the note sequence is missing (run ticket-issuer migrate)');
  return { last_seq: Number(row.last_seq), copy_id: row.copy_id };
}

/** The event's tickets changed after `after` and at most `upTo`, in change order, at most `limit`, with their state now. */
export async function notesAfter(
  db: Sql,
  eid: string,
  after: number,
  upTo: number,
  limit: number,
): Promise<{ rows: NoteRow[]; lastSeq: number | null }> {
  const rows = await db.all<{ tid: string; attention: number; note: string | null; seq: number }>(
    `SELECT tid, attention, note, note_seq AS seq FROM tickets
     WHERE eid = ? AND note_seq IS NOT NULL AND note_seq > ? AND note_seq <= ?
     ORDER BY note_seq LIMIT ?`,
    [eid, after, upTo, limit],
  );
  return {
    rows: rows.map((row) => [row.tid, Number(row.attention) === 1 ? 1 : 0, row.note]),
    lastSeq: rows.length === 0 ? null : Number(rows[rows.length - 1]!.seq),
  };
}
