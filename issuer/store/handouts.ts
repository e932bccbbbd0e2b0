/**
 * Handouts (docs/protocol.md "Handouts (project extension)"): a ticket type's items in ticket_type_handouts, a
 * ticket's own in its row (JSON), and every handout a kiosk recorded in `handouts`, one row per handout id. A change
 * of a ticket's own items, and every handout given, takes a number of the note sequence (store/attention-notes.ts) in
 * the same transaction, so the synced list brings the new state to offline kiosks, exact under concurrency.
 */
import { mergeHandouts, type HandoutGiven, type HandoutItem, type HandoutRefusal } from '../../protocol/handouts.js';
import { takeNoteNumbers } from './attention-notes.js';
import type { Sql } from './sql.js';

export interface TypeHandouts {
  ticket_type: string;
  items: HandoutItem[];
}

/** One row of `handouts`. */
export interface HandoutRow {
  hid: string;
  eid: string;
  tid: string;
  item: string;
  status: 'given' | 'refused';
  reason: HandoutRefusal | null;
  given_at: string;
  received_at: string;
  scanner_id: string;
  scanner_name: string;
  gate_id: string | null;
  api_key_id: string;
  staff_id: string | null;
}

/** The stored JSON list → items; a value this code did not write reads as none. */
export function parseItems(json: string | null | undefined): HandoutItem[] {
  if (json === null || json === undefined || json === '') return [];
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value)
      ? value.filter(
          (entry): entry is HandoutItem =>
            typeof entry === 'object' && entry !== null && typeof entry.item === 'string' && Number.isInteger(entry.count),
        )
      : [];
  } catch {
    return [];
  }
}

const itemsJson = (items: readonly HandoutItem[]): string => JSON.stringify(items.map(({ item, count }) => ({ item, count })));

/** Sets a type's items (an empty list removes them). */
export async function setTypeHandouts(tx: Sql, eid: string, ticketType: string, items: readonly HandoutItem[], now: string): Promise<void> {
  if (items.length === 0) {
    await tx.run('DELETE FROM ticket_type_handouts WHERE eid = ? AND ticket_type = ?', [eid, ticketType]);
    return;
  }
  await tx.run(
    `INSERT INTO ticket_type_handouts (eid, ticket_type, items, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (eid, ticket_type) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`,
    [eid, ticketType, itemsJson(items), now],
  );
}

export async function typeHandoutsOf(db: Sql, eid: string, ticketType: string | null): Promise<HandoutItem[]> {
  if (ticketType === null) return [];
  const row = await db.get<{ items: string }>('SELECT items FROM ticket_type_handouts WHERE eid = ? AND ticket_type = ?', [
    eid,
    ticketType,
  ]);
  return parseItems(row?.items);
}

/** Every type's items of the event, by type. */
export async function typeHandoutListsOf(db: Sql, eid: string): Promise<TypeHandouts[]> {
  const rows = await db.all<{ ticket_type: string; items: string }>(
    'SELECT ticket_type, items FROM ticket_type_handouts WHERE eid = ? ORDER BY ticket_type',
    [eid],
  );
  return rows.map((row) => ({ ticket_type: row.ticket_type, items: parseItems(row.items) }));
}

/** Sets a ticket's own items (an empty list removes them); false when there is no such ticket. */
export async function setTicketHandouts(tx: Sql, tid: string, items: readonly HandoutItem[]): Promise<boolean> {
  const row = await tx.get<{ handouts: string | null }>('SELECT handouts FROM tickets WHERE tid = ?', [tid]);
  if (!row) return false;
  const json = items.length === 0 ? null : itemsJson(items);
  if ((row.handouts ?? null) === json) return true;
  const seq = await takeNoteNumbers(tx, 1);
  await tx.run('UPDATE tickets SET handouts = ?, note_seq = ? WHERE tid = ?', [json, seq, tid]);
  return true;
}

export async function ticketHandoutsOf(db: Sql, tid: string): Promise<HandoutItem[]> {
  const row = await db.get<{ handouts: string | null }>('SELECT handouts FROM tickets WHERE tid = ?', [tid]);
  return parseItems(row?.handouts);
}

export function findHandout(db: Sql, hid: string): Promise<HandoutRow | undefined> {
  return db.get<HandoutRow>('SELECT * FROM handouts WHERE hid = ?', [hid]);
}

/** The handouts given to a ticket, with their item, oldest first. */
export async function givenOf(db: Sql, tid: string): Promise<Array<HandoutGiven & { item: string }>> {
  const rows = await db.all<{ hid: string; item: string; given_at: string; gate_id: string | null; scanner_name: string }>(
    `SELECT hid, item, given_at, gate_id, scanner_name FROM handouts WHERE tid = ? AND status = 'given' ORDER BY given_at, hid`,
    [tid],
  );
  return rows.map((row) => ({ hid: row.hid, item: row.item, at: row.given_at, gate: row.gate_id, scanner: row.scanner_name }));
}

type GivenRowOfTicket = { tid: string; hid: string; item: string; given_at: string; gate_id: string | null; scanner_name: string };

/** Handout rows (oldest first) by ticket, in the answers' form. */
function givenByTicket(rows: readonly GivenRowOfTicket[]): Map<string, Array<HandoutGiven & { item: string }>> {
  const given = new Map<string, Array<HandoutGiven & { item: string }>>();
  for (const row of rows) {
    const list = given.get(row.tid) ?? [];
    list.push({ hid: row.hid, item: row.item, at: row.given_at, gate: row.gate_id, scanner: row.scanner_name });
    given.set(row.tid, list);
  }
  return given;
}

/** The handouts given to the listed tickets (a page of search results), by ticket, oldest first: one statement. */
export async function givenOfTickets(db: Sql, tids: readonly string[]): Promise<Map<string, Array<HandoutGiven & { item: string }>>> {
  if (tids.length === 0) return new Map();
  const rows = await db.all<GivenRowOfTicket>(
    `SELECT tid, hid, item, given_at, gate_id, scanner_name FROM handouts
     WHERE tid IN (${tids.map(() => '?').join(', ')}) AND status = 'given' ORDER BY given_at, hid`,
    [...tids],
  );
  return givenByTicket(rows);
}

/**
 * The handout rows of the tickets listed on one page of the synced list: those of `eid` whose note number is in
 * (after, upTo]. Two statements a page, not two per 500 tickets (docs/benchmarks.md "Handout list sync").
 */
export async function pageHandoutRows(
  db: Sql,
  eid: string,
  after: number,
  upTo: number,
): Promise<{ lists: Map<string, HandoutItem[]>; given: Map<string, Array<HandoutGiven & { item: string }>> }> {
  const lists = new Map<string, HandoutItem[]>();
  const listRows = await db.all<{ tid: string; handouts: string }>(
    'SELECT tid, handouts FROM tickets WHERE eid = ? AND handouts IS NOT NULL AND note_seq > ? AND note_seq <= ?',
    [eid, after, upTo],
  );
  for (const row of listRows) lists.set(row.tid, parseItems(row.handouts));
  const givenRows = await db.all<GivenRowOfTicket>(
    `SELECT h.tid, h.hid, h.item, h.given_at, h.gate_id, h.scanner_name FROM handouts h JOIN tickets t ON t.tid = h.tid
     WHERE t.eid = ? AND t.note_seq > ? AND t.note_seq <= ? AND h.status = 'given' ORDER BY h.given_at, h.hid`,
    [eid, after, upTo],
  );
  return { lists, given: givenByTicket(givenRows) };
}

/** Records one handout (given or refused); a given one moves the ticket in the note sequence. */
export async function insertHandout(tx: Sql, row: HandoutRow): Promise<void> {
  await tx.run(
    `INSERT INTO handouts (hid, eid, tid, item, status, reason, given_at, received_at, scanner_id, scanner_name, gate_id, api_key_id, staff_id)
     VALUES (@hid, @eid, @tid, @item, @status, @reason, @given_at, @received_at, @scanner_id, @scanner_name, @gate_id, @api_key_id, @staff_id)`,
    { ...row },
  );
  if (row.status === 'given') {
    const seq = await takeNoteNumbers(tx, 1);
    await tx.run('UPDATE tickets SET note_seq = ? WHERE tid = ?', [seq, row.tid]);
  }
}

/** Every handout of the event, for the export, in the order given. */
export function handoutsOfEvent(db: Sql, eid: string): Promise<HandoutRow[]> {
  return db.all<HandoutRow>('SELECT * FROM handouts WHERE eid = ? ORDER BY given_at, hid', [eid]);
}

/**
 * Per item: how many the event's tickets not revoked are due, by their lists (a type's items merged with a ticket's
 * own, protocol/handouts.ts mergeHandouts). Two statements: tickets without their own list counted by type, and the
 * few with one read and merged here.
 */
export async function handoutsDue(db: Sql, eid: string): Promise<Map<string, number>> {
  const typeItems = new Map((await typeHandoutListsOf(db, eid)).map((list) => [list.ticket_type, list.items]));
  const due = new Map<string, number>();
  const add = (items: readonly HandoutItem[], tickets: number): void => {
    for (const entry of items) due.set(entry.item, (due.get(entry.item) ?? 0) + entry.count * tickets);
  };
  if (typeItems.size > 0) {
    const byType = await db.all<{ ticket_type: string; tickets: number | string }>(
      `SELECT ticket_type, COUNT(*) AS tickets FROM tickets
       WHERE eid = ? AND revoked_at IS NULL AND handouts IS NULL AND ticket_type IS NOT NULL GROUP BY ticket_type`,
      [eid],
    );
    // COUNT is a bigint on PostgreSQL, which arrives as a string.
    for (const row of byType) add(typeItems.get(row.ticket_type) ?? [], Number(row.tickets));
  }
  const own = await db.all<{ ticket_type: string | null; handouts: string }>(
    'SELECT ticket_type, handouts FROM tickets WHERE eid = ? AND revoked_at IS NULL AND handouts IS NOT NULL',
    [eid],
  );
  for (const row of own) add(mergeHandouts(row.ticket_type === null ? null : typeItems.get(row.ticket_type), parseItems(row.handouts)), 1);
  return due;
}

/** Per item: how many given and how many refused (the dashboard's counts). */
export async function handoutCounts(db: Sql, eid: string): Promise<Array<{ item: string; given: number; refused: number }>> {
  const rows = await db.all<{ item: string; given: number | string; refused: number | string }>(
    `SELECT item, SUM(CASE WHEN status = 'given' THEN 1 ELSE 0 END) AS given, SUM(CASE WHEN status = 'refused' THEN 1 ELSE 0 END) AS refused
     FROM handouts WHERE eid = ? GROUP BY item ORDER BY item`,
    [eid],
  );
  // SUM is a bigint on PostgreSQL, which arrives as a string.
  return rows.map((row) => ({ item: row.item, given: Number(row.given), refused: Number(row.refused) }));
}
