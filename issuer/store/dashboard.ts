/**
 * Read-only queries of the admin dashboard (issuer/services/dashboard.ts).
 *
 * The live counts are kept up to date incrementally: tickets, checkins and
 * scan_log only ever grow, so each refresh reads just the rows added since
 * the last one, by rowid (the tables' own B-tree, no extra index and so no
 * extra cost on the check-in path). Full GROUP BY queries over a 100,000
 * ticket event cost tens of milliseconds each, too much every two seconds on
 * the thread that answers the doors.
 */
import { idQuery, searchTokens } from '../../protocol/search-name.js';
import type { StaffRole } from '../../protocol/access.js';
import type { Sql } from './sql.js';
import type { TicketRow } from './tickets.js';
import type { AdmissionEventEntry, ScanLogEntry } from './log-rows.js';

export interface NewTicketRow {
  rowid: number;
  eid: string;
  ticket_type: string | null;
}

export interface NewCheckinRow {
  rowid: number;
  eid: string;
  ticket_type: string | null;
  gate_id: string | null;
}

/** A scan_log row as the dashboard counts it: all but its idempotency key and details. */
export type NewScanRow = Omit<ScanLogEntry, 'idempotency_key' | 'details'>;

export function ticketsAfter(db: Sql, rowid: number, limit: number): Promise<NewTicketRow[]> {
  return db.all<NewTicketRow>('SELECT rowid, eid, ticket_type FROM tickets WHERE rowid > ? ORDER BY rowid LIMIT ?', [rowid, limit]);
}

/**
 * New check-in rows, each with the gate of the ticket's first entry: the row's own gate_id follows the
 * latest entry (a re-entry moves it), and the dashboard counts a check-in where it happened, whenever it
 * reads the row (the ticket's entries are in its history, docs/protocol.md "Door operations").
 */
export async function checkinsAfter(db: Sql, rowid: number, limit: number): Promise<NewCheckinRow[]> {
  const rows = await db.all<NewCheckinRow & { first_entry_id: number | null; first_entry_gate_id: string | null }>(
    `SELECT c.rowid AS rowid, t.eid, t.ticket_type, c.gate_id, f.id AS first_entry_id, f.gate_id AS first_entry_gate_id
     FROM checkins c JOIN tickets t ON t.tid = c.tid
     LEFT JOIN admission_events f ON f.id = (SELECT MIN(a.id) FROM admission_events a WHERE a.tid = c.tid AND a.action = 'entry')
     WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?`,
    [rowid, limit],
  );
  return rows.map(({ first_entry_id, first_entry_gate_id, ...row }) =>
    first_entry_id === null ? row : { ...row, gate_id: first_entry_gate_id },
  );
}

/**
 * The entry an annulment undid: the ticket's first entry (not a late one) after its previous annulment, before
 * `annulId`. Its gate (where the undone check-in is counted) and its staff id (who let the holder in,
 * docs/issuer.md "Admin dashboard"); nulls when it had none, or no entry is recorded.
 */
export async function annulledAdmission(
  db: Sql,
  tid: string,
  annulId: number,
): Promise<{ gate_id: string | null; staff_id: string | null }> {
  const row = await db.get<{ gate_id: string | null; staff_id: string | null }>(
    `SELECT gate_id, staff_id FROM admission_events
     WHERE tid = ? AND action = 'entry' AND late = 0 AND id < ?
       AND id > COALESCE((SELECT MAX(id) FROM admission_events WHERE tid = ? AND action = 'annul' AND id < ?), 0)
     ORDER BY id LIMIT 1`,
    [tid, annulId, tid, annulId],
  );
  return { gate_id: row?.gate_id ?? null, staff_id: row?.staff_id ?? null };
}

export function scansAfter(db: Sql, id: number, limit: number): Promise<NewScanRow[]> {
  return db.all<NewScanRow>(
    'SELECT id, at, scanned_at, tid, eid, scanner_id, api_key_id, gate_id, outcome FROM scan_log WHERE id > ? ORDER BY id LIMIT ?',
    [id, limit],
  );
}

/**
 * One admission event (admission_events only grows, like the scan log): the dashboard keeps the annulments,
 * counts the offline admissions synced, per scanner and ticket type, and the entries and exits per minute
 * and gate (the arrivals chart).
 */
export type NewAdmissionEventRow = Omit<AdmissionEventEntry, 'api_key_id' | 'idempotency_key'>;

export function admissionEventsAfter(db: Sql, id: number, limit: number): Promise<NewAdmissionEventRow[]> {
  return db.all<NewAdmissionEventRow>(
    `SELECT id, tid, eid, action, at, gate_id, recorded_at, actor, reason, scanner_id, ticket_type, admitted_offline, late, staff_id, id_check
     FROM admission_events WHERE id > ? ORDER BY id LIMIT ?`,
    [id, limit],
  );
}

/** The highest rowids now: smaller than a cursor only if rows were deleted (e.g. a restored backup), which resets the counts. */
export async function highestRowids(db: Sql): Promise<{ tickets: number; checkins: number; scans: number; events: number }> {
  const row = await db.get<{ tickets: number; checkins: number; scans: number; events: number }>(
    `SELECT (SELECT COALESCE(MAX(rowid), 0) FROM tickets) AS tickets,
            (SELECT COALESCE(MAX(rowid), 0) FROM checkins) AS checkins,
            (SELECT COALESCE(MAX(id), 0) FROM scan_log) AS scans,
            (SELECT COALESCE(MAX(id), 0) FROM admission_events) AS events`,
  );
  return { tickets: Number(row!.tickets), checkins: Number(row!.checkins), scans: Number(row!.scans), events: Number(row!.events) };
}

/** A kiosk of the event (an unrevoked key), with its setup code's direction and its last heartbeat, if any. */
export interface KioskRow {
  api_key_id: string;
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  token_direction: 'entry' | 'exit' | null;
  heartbeat_direction: 'entry' | 'exit' | null;
  pending_scans: number | null;
  offline_exposure: string | null;
  offline_last_hour: string | null;
  reported_at: string | null;
  clock_offset_ms: number | null;
}

/** One row per unrevoked key of the event (a handful): the key, its token and its heartbeat row by primary key. */
export function kioskRows(db: Sql, eid: string): Promise<KioskRow[]> {
  return db.all<KioskRow>(
    `SELECT k.api_key_id, k.scanner_id, k.scanner_name, k.gate_id, t.direction AS token_direction, h.direction AS heartbeat_direction,
            h.pending_scans, h.offline_exposure, h.offline_last_hour, h.reported_at, h.clock_offset_ms
     FROM api_keys k LEFT JOIN enrollment_tokens t ON t.token_id = k.token_id LEFT JOIN scanner_heartbeats h ON h.api_key_id = k.api_key_id
     WHERE k.eid = ? AND k.revoked_at IS NULL ORDER BY k.created_at, k.api_key_id`,
    [eid],
  );
}

/** Uses the partial index tickets_revoked_by_event (migration 2): proportional to the revoked tickets only. */
export async function revokedCount(db: Sql, eid: string): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM tickets WHERE eid = ? AND revoked_at IS NOT NULL', [eid]))!.n;
}

/** A ticket with its event's name and its check-in, if any. */
export interface LookupRow extends TicketRow {
  event_name: string;
  checked_in_at: string | null;
  checkin_gate_id: string | null;
  checkin_scanner_id: string | null;
  checkin_api_key_id: string | null;
  checkin_scanner_name: string | null;
  /** The check-in's state (inside, outside, annulled), null without one. */
  checkin_state: 'inside' | 'outside' | 'annulled' | null;
  /** The staff id on the check-in's entry (a badge's sid or the kiosk's staff id), null without one. */
  checkin_staff_id: string | null;
  /** The badge holder's name and role when that staff id is a staff badge of the ticket's event. */
  checkin_staff_name: string | null;
  checkin_staff_role: StaffRole | null;
  /** The ticket type's attention rule (docs/protocol.md "Attention notes (project extension)"), null without one. */
  type_attention: number | null;
  type_note: string | null;
  /** Its own handout items (JSON) and its party's counts (services/ticket-extras.ts reads them with the list). */
  handouts: string | null;
  party_inside: number | null;
  party_admitted: number | null;
}

/** `%`, `_` and the escape character itself match literally (LIKE … ESCAPE '\'). */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const LOOKUP_SELECT = `
  SELECT t.tid, t.eid, t.kid, t.holder_name, t.ticket_type, t.issued_at, t.exp, t.qr, t.revoked_at, t.revoke_reason, e.name AS event_name,
         t.attention, t.note, n.attention AS type_attention, n.note AS type_note, c.checked_in_at, c.gate_id AS checkin_gate_id, c.scanner_id AS checkin_scanner_id,
         c.api_key_id AS checkin_api_key_id, k.scanner_name AS checkin_scanner_name, c.state AS checkin_state,
         t.handouts, t.party, c.party_inside, c.party_admitted,
         ce.staff_id AS checkin_staff_id, sb.name AS checkin_staff_name, sb.role AS checkin_staff_role
  FROM tickets t JOIN events e ON e.eid = t.eid
  LEFT JOIN checkins c ON c.tid = t.tid
  LEFT JOIN api_keys k ON k.api_key_id = c.api_key_id
  LEFT JOIN admission_events ce ON ce.id = (SELECT MAX(a.id) FROM admission_events a
                                            WHERE a.tid = c.tid AND a.action = 'entry' AND a.idempotency_key = c.idempotency_key)
  LEFT JOIN staff_badges sb ON sb.sid = ce.staff_id AND sb.eid = t.eid
  LEFT JOIN ticket_type_notes n ON n.eid = t.eid AND n.ticket_type = t.ticket_type`;

/**
 * Tickets whose id is `query` (any event), then tickets of `eid` whose holder name contains it (case-insensitive:
 * LOWER on both sides, so SQLite and PostgreSQL agree) or holds every word of it as the ticket search matches them
 * (accents and case aside, docs/protocol.md "Ticket search"), or whose short id it is, at most `limit`.
 */
export async function lookupTickets(db: Sql, eid: string, query: string, limit: number): Promise<LookupRow[]> {
  // Ticket ids are ULIDs (upper case); a person may type them in lower case.
  const exact = await db.all<LookupRow>(`${LOOKUP_SELECT} WHERE t.tid IN (?, ?)`, [query, query.toUpperCase()]);
  // Words of one letter (the `a` and `u` of `a_u`) would match nearly every name: then only the literal match holds.
  const words = searchTokens(query);
  const tokens = words.every((word) => word.length >= 2) ? words : [];
  const id = idQuery(query);
  const shortId = id !== null && 'shortId' in id ? id.shortId : null;
  const matches = [
    "LOWER(t.holder_name) LIKE LOWER(?) ESCAPE '\\'",
    ...(tokens.length > 0 ? [`(${tokens.map(() => 't.search_name LIKE ?').join(' AND ')})`] : []),
    ...(shortId !== null ? ['t.tid LIKE ?'] : []),
  ];
  const byName = await db.all<LookupRow>(
    `${LOOKUP_SELECT} WHERE t.eid = ? AND (${matches.join(' OR ')}) ORDER BY t.holder_name, t.tid LIMIT ?`,
    [eid, `%${escapeLike(query)}%`, ...tokens.map((token) => `%${token}%`), ...(shortId !== null ? [`%${shortId}`] : []), limit],
  );
  const seen = new Set(exact.map((row) => row.tid));
  return [...exact, ...byName.filter((row) => !seen.has(row.tid))].slice(0, limit);
}

/** The ticket behind an alert: its holder, its own event and its first check-in, if any. */
export function findLookupRow(db: Sql, tid: string): Promise<LookupRow | undefined> {
  return db.get<LookupRow>(`${LOOKUP_SELECT} WHERE t.tid = ?`, [tid]);
}

/** Every scanner key's event: scans are counted for the event of the key that sent them. */
export function apiKeyEvents(db: Sql): Promise<{ api_key_id: string; eid: string }[]> {
  return db.all<{ api_key_id: string; eid: string }>('SELECT api_key_id, eid FROM api_keys');
}
