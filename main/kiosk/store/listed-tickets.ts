/**
 * The synced notes list's per-ticket rows, kept compact on the kiosk's disk (docs/kiosk.md "Attention notes",
 * docs/benchmarks.md "Attention notes sync"): one row per listed ticket in one WITHOUT ROWID table, keyed by the
 * tid's 16 ULID bytes (the text only for a tid that is not a canonical ULID), holding everything the list says of
 * the ticket: its flag and note, its age band (docs/kiosk.md "ID checks"), its party size ("Party tickets"), its own
 * handout items and the handouts given ("Handouts"). The tid is stored and indexed once. A note text that several
 * tickets carry is stored once in `list_texts` and referred to by a number; a text of one ticket stays in its row.
 * The wire is unchanged: this is only how the kiosk keeps what the pages sent.
 */
import crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AgeBand } from '../../../protocol/id-check.js';
import type { GivenRow, HandoutItem } from '../../../protocol/handouts.js';

/** The store's prepared statements (database.ts Statements), or a migration's connection. */
interface Statements {
  statement(sql: string): Database.Statement;
}

/** What the list says of one ticket. */
export interface ListedTicket {
  tid: string;
  attention: 0 | 1;
  note: string | null;
  band: AgeBand | null;
  /** 2 to 1000; null: one person. */
  party: number | null;
  /** The ticket's own items and the handouts given, as the page sent them; null: none. */
  handouts: { items: HandoutItem[]; given: GivenRow[] } | null;
}

/** The table and its texts (kiosk.db migration NOTES_COMPACT_MIGRATION). */
export const LISTED_TICKETS_SCHEMA = `
  CREATE TABLE listed_tickets (
    tid BLOB PRIMARY KEY,       -- the ULID's 16 bytes, or the tid's text when it is not a canonical ULID
    note,                       -- TEXT: the note; INTEGER: a shared text (list_texts.h); NULL: none
    flags INTEGER NOT NULL,     -- bit 0 the attention flag; bits 1-2 the age band (1 over, 2 under, 3 unknown); bits 3+ the party size (0: one)
    handouts TEXT               -- JSON [items, given] as the page sent them; NULL: none
  ) WITHOUT ROWID;
  CREATE TABLE list_texts (h INTEGER PRIMARY KEY, text TEXT NOT NULL);
`;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A character code's value in CROCKFORD (the test below lets only those through). */
const CROCKFORD_VALUE = new Uint8Array(128);
for (let i = 0; i < CROCKFORD.length; i++) CROCKFORD_VALUE[CROCKFORD.charCodeAt(i)] = i;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** The stored key of a tid: a canonical ULID as its 16 bytes, any other tid as its text (never equal to a BLOB). */
export function tidKey(tid: string): Buffer | string {
  if (!ULID.test(tid)) return tid;
  const key = Buffer.alloc(16);
  // 26 characters of 5 bits (the first carries 3): the 128 bits from the last byte up.
  let bits = 0;
  let value = 0;
  let at = 15;
  for (let i = 25; i >= 0; i--) {
    value |= CROCKFORD_VALUE[tid.charCodeAt(i)]! << bits;
    bits += 5;
    while (bits >= 8 && at >= 0) {
      key[at--] = value & 0xff;
      value >>>= 8;
      bits -= 8;
    }
  }
  return key;
}

const BANDS: readonly (AgeBand | null)[] = [null, 'over', 'under', 'unknown'];

const flagsOf = (row: ListedTicket): number =>
  row.attention | (BANDS.indexOf(row.band) << 1) | ((row.party !== null && row.party > 1 ? row.party : 0) << 3);

const isEmpty = (row: ListedTicket): boolean =>
  row.attention === 0 && row.note === null && row.band === null && (row.party === null || row.party <= 1) && row.handouts === null;

/** A text's number in list_texts: 48 bits of its SHA-256 (a text found under it is compared before it is shared). */
const textHash = (text: string): number => crypto.createHash('sha256').update(text).digest().readUIntBE(0, 6);

/**
 * Writes the listed tickets' rows (a ticket with nothing listed has none). A note carried by two or more of these
 * tickets, or already shared, is stored once in list_texts; call pruneTexts after the list is complete.
 */
export function putListed(sql: Statements, rows: readonly ListedTicket[]): void {
  const uses = new Map<string, number>();
  for (const row of rows) if (row.note !== null) uses.set(row.note, (uses.get(row.note) ?? 0) + 1);
  const shared = new Map<string, number | null>();
  const findText = sql.statement('SELECT text FROM list_texts WHERE h = ?');
  const addText = sql.statement('INSERT INTO list_texts (h, text) VALUES (?, ?)');
  // Most lists share no text: then a text of one ticket needs neither a hash nor a lookup.
  const anyShared = sql.statement('SELECT EXISTS (SELECT 1 FROM list_texts) AS found').get() as { found: number };
  const sharedRef = (text: string): number | null => {
    const known = shared.get(text);
    if (known !== undefined) return known;
    if (anyShared.found === 0 && (uses.get(text) ?? 0) < 2) return null;
    const h = textHash(text);
    const found = findText.get(h) as { text: string } | undefined;
    let ref: number | null = null;
    // Another text under the same number (48 bits: not expected) leaves this one in its rows.
    if (found !== undefined) ref = found.text === text ? h : null;
    else if ((uses.get(text) ?? 0) >= 2) {
      addText.run(h, text);
      ref = h;
    }
    shared.set(text, ref);
    return ref;
  };
  const remove = sql.statement('DELETE FROM listed_tickets WHERE tid = ?');
  const put = sql.statement(
    `INSERT INTO listed_tickets (tid, note, flags, handouts) VALUES (?, ?, ?, ?)
     ON CONFLICT (tid) DO UPDATE SET note = excluded.note, flags = excluded.flags, handouts = excluded.handouts`,
  );
  for (const row of rows) {
    const key = tidKey(row.tid);
    if (isEmpty(row)) {
      remove.run(key);
      continue;
    }
    const ref = row.note === null ? null : sharedRef(row.note);
    // A BigInt binds as an INTEGER (a JS number binds as a REAL), so `typeof(note)` tells a reference from a text.
    const note = ref === null ? row.note : BigInt(ref);
    put.run(key, note, flagsOf(row), row.handouts === null ? null : JSON.stringify([row.handouts.items, row.handouts.given]));
  }
}

/** Drops the shared texts no listed ticket refers to any longer. */
export function pruneTexts(sql: Statements): void {
  sql.statement("DELETE FROM list_texts WHERE h NOT IN (SELECT note FROM listed_tickets WHERE typeof(note) = 'integer')").run();
}

/** Every listed ticket gone (a list of another event, or the issuer's reset). */
export function clearListed(sql: Statements): void {
  sql.statement('DELETE FROM listed_tickets').run();
  sql.statement('DELETE FROM list_texts').run();
}

interface RawRow {
  note: string | number | null;
  flags: number;
  handouts: string | null;
}

/** What the list says of `tid`; undefined when it says nothing. */
export function listedOf(sql: Statements, tid: string): Omit<ListedTicket, 'tid'> | undefined {
  const row = sql.statement('SELECT note, flags, handouts FROM listed_tickets WHERE tid = ?').get(tidKey(tid)) as RawRow | undefined;
  if (row === undefined) return undefined;
  const note =
    typeof row.note === 'number'
      ? ((sql.statement('SELECT text FROM list_texts WHERE h = ?').get(row.note) as { text: string } | undefined)?.text ?? null)
      : row.note;
  const flags = Number(row.flags);
  const party = flags >> 3;
  let handouts: ListedTicket['handouts'] = null;
  if (row.handouts !== null) {
    try {
      const [items, given] = JSON.parse(row.handouts) as [HandoutItem[], GivenRow[]];
      handouts = { items, given };
    } catch {
      handouts = null;
    }
  }
  return { attention: (flags & 1) as 0 | 1, note, band: BANDS[(flags >> 1) & 3] ?? null, party: party > 1 ? party : null, handouts };
}

/** Listed tickets with a flag or a note (shown on Setup). */
export function countNoted(sql: Statements): number {
  return (sql.statement('SELECT COUNT(*) AS n FROM listed_tickets WHERE note IS NOT NULL OR (flags & 1) = 1').get() as { n: number }).n;
}

/**
 * kiosk.db migration NOTES_COMPACT_MIGRATION: the rows a kiosk already has move from the four tables of migrations
 * 4, 5, 6 and 7 (one per kind, each keyed by the tid's text) into listed_tickets, and those tables go. In the
 * migration's transaction, so a kiosk that upgrades offline keeps its list.
 */
export function migrateToListedTickets(db: Database.Database): void {
  db.exec(LISTED_TICKETS_SCHEMA);
  const rows = new Map<string, ListedTicket>();
  const rowOf = (tid: string): ListedTicket => {
    let row = rows.get(tid);
    if (row === undefined) rows.set(tid, (row = { tid, attention: 0, note: null, band: null, party: null, handouts: null }));
    return row;
  };
  for (const r of db.prepare('SELECT tid, attention, note FROM attention_tickets').all() as {
    tid: string;
    attention: number;
    note: string | null;
  }[]) {
    Object.assign(rowOf(r.tid), { attention: r.attention === 1 ? 1 : 0, note: r.note });
  }
  for (const r of db.prepare('SELECT tid, band FROM id_check_bands').all() as { tid: string; band: AgeBand }[]) rowOf(r.tid).band = r.band;
  for (const r of db.prepare('SELECT tid, size FROM party_sizes').all() as { tid: string; size: number }[]) rowOf(r.tid).party = r.size;
  for (const r of db.prepare('SELECT tid, items, given FROM handout_tickets').all() as { tid: string; items: string; given: string }[]) {
    try {
      rowOf(r.tid).handouts = { items: JSON.parse(r.items) as HandoutItem[], given: JSON.parse(r.given) as GivenRow[] };
    } catch {
      // A row this app did not write: left out, as the reader would have read it as none.
    }
  }
  const sql: Statements = { statement: (text) => db.prepare(text) };
  putListed(sql, [...rows.values()]);
  db.exec('DROP TABLE attention_tickets; DROP TABLE id_check_bands; DROP TABLE party_sizes; DROP TABLE handout_tickets;');
}
