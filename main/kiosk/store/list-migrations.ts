/**
 * The kiosk.db migrations of the synced notes list (docs/kiosk.md "Attention notes"), each in its migration's
 * transaction, so a kiosk that upgrades offline keeps its list:
 * - NOTES_COMPACT_MIGRATION (8): the four tables of migrations 4 to 7 (one per kind, keyed by the tid's text) into
 *   one row per listed ticket in `listed_tickets`, keyed by the tid's 16 ULID bytes (its text when not a ULID);
 * - LIST_BLOCKS_MIGRATION (9): those rows, with the note texts they shared in `list_texts`, into the compressed
 *   blocks of store/listed-tickets.ts.
 * The format of migration 8 is written and read here only.
 */
import type Database from 'better-sqlite3';
import type { AgeBand } from '../../../protocol/id-check.js';
import type { GivenRow, HandoutItem } from '../../../protocol/handouts.js';
import { LIST_BLOCKS_SCHEMA, putListed, type ListedTicket, type Statements } from './listed-tickets.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const BANDS: readonly (AgeBand | null)[] = [null, 'over', 'under', 'unknown'];

/** Migration 8's key of a tid: a canonical ULID as its 16 bytes (128 bits), any other tid as its text. */
export function tidKey(tid: string): Buffer | string {
  if (!ULID.test(tid)) return tid;
  let value = 0n;
  for (const character of tid) value = (value << 5n) | BigInt(CROCKFORD.indexOf(character));
  return Buffer.from(value.toString(16).padStart(32, '0'), 'hex');
}

/** The tid of migration 8's key (tidKey's inverse). */
export function tidOfKey(key: Buffer | string): string {
  if (typeof key === 'string') return key;
  let value = BigInt(`0x${key.toString('hex')}`);
  let tid = '';
  for (let i = 0; i < 26; i++, value >>= 5n) tid = CROCKFORD[Number(value & 31n)]! + tid;
  return tid;
}

/** Migration 8's table: each listed ticket's row (note: its TEXT, or a shared text's number in list_texts). */
const LISTED_TICKETS_SCHEMA = `
  CREATE TABLE listed_tickets (tid BLOB PRIMARY KEY, note, flags INTEGER NOT NULL, handouts TEXT) WITHOUT ROWID;
  CREATE TABLE list_texts (h INTEGER PRIMARY KEY, text TEXT NOT NULL);
`;

/** kiosk.db migration 8: the four per-kind tables into listed_tickets (each note kept in its row). */
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
  const put = db.prepare('INSERT INTO listed_tickets (tid, note, flags, handouts) VALUES (?, ?, ?, ?)');
  for (const row of rows.values()) {
    const flags = row.attention | (BANDS.indexOf(row.band) << 1) | ((row.party !== null && row.party > 1 ? row.party : 0) << 3);
    put.run(tidKey(row.tid), row.note, flags, row.handouts === null ? null : JSON.stringify([row.handouts.items, row.handouts.given]));
  }
  db.exec('DROP TABLE attention_tickets; DROP TABLE id_check_bands; DROP TABLE party_sizes; DROP TABLE handout_tickets;');
}

interface ListedRowV8 {
  tid: Buffer | string;
  note: string | number | null;
  shared: string | null;
  flags: number;
  handouts: string | null;
}

/** kiosk.db migration 9: listed_tickets and list_texts into list_blocks. */
export function migrateToListBlocks(db: Database.Database): void {
  db.exec(LIST_BLOCKS_SCHEMA);
  const rows = db
    .prepare(
      `SELECT l.tid, l.note, t.text AS shared, l.flags, l.handouts FROM listed_tickets l
       LEFT JOIN list_texts t ON typeof(l.note) = 'integer' AND t.h = l.note`,
    )
    .all() as ListedRowV8[];
  const tickets = rows.map((row): ListedTicket => {
    const party = row.flags >> 3;
    let handouts: ListedTicket['handouts'] = null;
    try {
      if (row.handouts !== null) {
        const [items, given] = JSON.parse(row.handouts) as [HandoutItem[], GivenRow[]];
        handouts = { items, given };
      }
    } catch {
      // A row this app did not write: none, as the reader of migration 8 read it.
    }
    return {
      tid: tidOfKey(row.tid),
      attention: (row.flags & 1) as 0 | 1,
      note: typeof row.note === 'number' ? row.shared : row.note,
      band: BANDS[(row.flags >> 1) & 3] ?? null,
      party: party > 1 ? party : null,
      handouts,
    };
  });
  const sql: Statements = { statement: (text) => db.prepare(text) };
  putListed(sql, tickets);
  db.exec('DROP TABLE listed_tickets; DROP TABLE list_texts;');
}
