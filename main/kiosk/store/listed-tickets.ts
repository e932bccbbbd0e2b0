/**
 * The synced notes list's per-ticket entries, kept small on the kiosk's disk (docs/kiosk.md "Attention notes",
 * docs/benchmarks.md "Attention notes sync"): everything the list says of a ticket (its flag and note, its age band
 * (docs/kiosk.md "ID checks"), its party size ("Party tickets"), its own handout items and the handouts given
 * ("Handouts")) is one entry, a line of JSON, and the entries are kept in blocks of neighbouring tids, each block one
 * row of `list_blocks` compressed with deflate. The tids of a block share their time prefix and the notes, item lists, gates
 * and times repeat, so a block takes a third or less of the bytes the same tickets took one row each. A ticket is read
 * by finding its block (the row with the greatest first tid not above it), unpacking it and parsing its line.
 * The wire is unchanged: this is only how the kiosk keeps what the pages sent.
 */
import zlib from 'node:zlib';
import type Database from 'better-sqlite3';
import type { AgeBand } from '../../../protocol/id-check.js';
import type { GivenRow, HandoutItem } from '../../../protocol/handouts.js';

/** The store's prepared statements (database.ts Statements), or a migration's connection. */
export interface Statements {
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

/** The table (kiosk.db migration LIST_BLOCKS_MIGRATION). */
export const LIST_BLOCKS_SCHEMA = `
  CREATE TABLE list_blocks (
    first TEXT PRIMARY KEY,    -- the block's lowest tid
    noted INTEGER NOT NULL,    -- how many of its tickets have a flag or a note (Setup's count)
    tickets BLOB NOT NULL      -- deflate-raw of its entries (Entry) in tid order, the JSON of one a line
  );
`;

/**
 * Entries a block is written with. A block is rewritten whole when one of its tickets changes and unpacked to read
 * one; 256 entries compress to some 4 to 5 KB, which SQLite keeps in full pages (a row longer than a page goes on
 * overflow pages, filled whole), where blocks of 128 (some 2 KB, one to a page) left half of each page empty (docs/benchmarks.md
 * "Attention notes sync"). A block grows to twice this before it is split.
 */
const BLOCK_ENTRIES = 256;

/** One ticket in a block: [tid, flags, note] or [tid, flags, note, items, given]. */
type Entry = [string, number, string | null] | [string, number, string | null, HandoutItem[], GivenRow[]];

const BANDS: readonly (AgeBand | null)[] = [null, 'over', 'under', 'unknown'];

/** Bit 0 the attention flag; bits 1-2 the age band (1 over, 2 under, 3 unknown); bits 3+ the party size (0: one). */
const flagsOf = (row: ListedTicket): number =>
  row.attention | (BANDS.indexOf(row.band) << 1) | ((row.party !== null && row.party > 1 ? row.party : 0) << 3);

const isEmpty = (row: ListedTicket): boolean =>
  row.attention === 0 && row.note === null && row.band === null && (row.party === null || row.party <= 1) && row.handouts === null;

const entryOf = (row: ListedTicket): Entry =>
  row.handouts === null ? [row.tid, flagsOf(row), row.note] : [row.tid, flagsOf(row), row.note, row.handouts.items, row.handouts.given];

function ticketOf(entry: Entry): Omit<ListedTicket, 'tid'> {
  const flags = entry[1];
  const party = flags >> 3;
  return {
    attention: (flags & 1) as 0 | 1,
    note: entry[2],
    band: BANDS[(flags >> 1) & 3] ?? null,
    party: party > 1 ? party : null,
    handouts: entry.length === 5 ? { items: entry[3], given: entry[4] } : null,
  };
}

const isNoted = (entry: Entry): boolean => entry[2] !== null || (entry[1] & 1) === 1;

/**
 * The one place JavaScript's order of strings (UTF-16 code units) differs from SQLite's (UTF-8 bytes): a character
 * from U+E000 to U+FFFF sorts after one beyond U+FFFF (a surrogate pair) in JavaScript, before it in UTF-8.
 */
const ORDERED_OTHERWISE = /[\uE000-\uFFFF]/u;

/** Two tids in SQLite's order of TEXT (BINARY collation: their UTF-8 bytes), so blocks and entries agree with `first`. */
export function compareTids(a: string, b: string): number {
  if (a === b) return 0;
  if (ORDERED_OTHERWISE.test(a) || ORDERED_OTHERWISE.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

interface BlockRow {
  first: string;
  tickets: Buffer;
}

/** A block's text: one entry's JSON a line (JSON never holds a raw line break), so one entry is found without parsing all. */
const unpack = (row: BlockRow): string => zlib.inflateRawSync(row.tickets).toString('utf8');

/** A block's entries; none for bytes this app did not write (the next write of the block replaces them). */
function entriesOf(row: BlockRow): Entry[] {
  try {
    return unpack(row)
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
  } catch {
    return [];
  }
}

/** The entry of `tid` in a block, parsing its line alone; undefined when the block has none. */
function entryIn(row: BlockRow, tid: string): Entry | undefined {
  try {
    const text = `\n${unpack(row)}\n`;
    const start = text.indexOf(`\n${JSON.stringify([tid]).slice(0, -1)},`);
    return start === -1 ? undefined : (JSON.parse(text.slice(start + 1, text.indexOf('\n', start + 1))) as Entry);
  } catch {
    return undefined;
  }
}

/** The block `tid` belongs in: the one with the greatest first tid not above it, else the first block. */
function blockOf(sql: Statements, tid: string): BlockRow | undefined {
  return (
    (sql.statement('SELECT first, tickets FROM list_blocks WHERE first <= ? ORDER BY first DESC LIMIT 1').get(tid) as
      BlockRow | undefined) ??
    (sql.statement('SELECT first, tickets FROM list_blocks ORDER BY first LIMIT 1').get() as BlockRow | undefined)
  );
}

/** The first tid of the block after the one starting at `first`; undefined for the last block. */
function nextFirst(sql: Statements, first: string): string | undefined {
  const row = sql.statement('SELECT first FROM list_blocks WHERE first > ? ORDER BY first LIMIT 1').get(first) as
    { first: string } | undefined;
  return row?.first;
}

/** Writes `entries` (in tid order) as blocks of at most 2 × BLOCK_ENTRIES, split evenly when more. */
function writeBlocks(sql: Statements, entries: readonly Entry[]): void {
  const put = sql.statement('INSERT INTO list_blocks (first, noted, tickets) VALUES (?, ?, ?)');
  const blocks = entries.length <= 2 * BLOCK_ENTRIES ? 1 : Math.ceil(entries.length / BLOCK_ENTRIES);
  for (let b = 0; b < blocks; b++) {
    const block = entries.slice(Math.floor((b * entries.length) / blocks), Math.floor(((b + 1) * entries.length) / blocks));
    if (block.length === 0) continue;
    const text = block.map((entry) => JSON.stringify(entry)).join('\n');
    put.run(block[0]![0], block.filter(isNoted).length, zlib.deflateRawSync(text));
  }
}

/**
 * Writes the listed tickets' entries (a ticket with nothing listed has none). The rows are taken in tid order and
 * each block they fall in is read, changed and written again once: a first sync, whose pages come in tid order,
 * writes each block once.
 */
export function putListed(sql: Statements, rows: readonly ListedTicket[]): void {
  const sorted = [...rows].sort((a, b) => compareTids(a.tid, b.tid));
  const remove = sql.statement('DELETE FROM list_blocks WHERE first = ?');
  let at = 0;
  while (at < sorted.length) {
    const block = blockOf(sql, sorted[at]!.tid);
    const entries = new Map<string, Entry>();
    let end: string | undefined;
    if (block !== undefined) {
      for (const entry of entriesOf(block)) entries.set(entry[0], entry);
      remove.run(block.first);
      end = nextFirst(sql, block.first);
    }
    // This block's rows: those before the next block's first tid (all the rest for the last block).
    for (; at < sorted.length && (end === undefined || compareTids(sorted[at]!.tid, end) < 0); at++) {
      const row = sorted[at]!;
      if (isEmpty(row)) entries.delete(row.tid);
      else entries.set(row.tid, entryOf(row));
    }
    const inOrder = [...entries.values()].sort((a, b) => compareTids(a[0], b[0]));
    writeBlocks(sql, inOrder);
  }
}

/** Every listed ticket gone (a list of another event, or the issuer's reset). */
export function clearListed(sql: Statements): void {
  sql.statement('DELETE FROM list_blocks').run();
}

/** What the list says of `tid`; undefined when it says nothing. */
export function listedOf(sql: Statements, tid: string): Omit<ListedTicket, 'tid'> | undefined {
  const block = sql.statement('SELECT first, tickets FROM list_blocks WHERE first <= ? ORDER BY first DESC LIMIT 1').get(tid) as
    BlockRow | undefined;
  if (block === undefined) return undefined;
  const entry = entryIn(block, tid);
  return entry === undefined ? undefined : ticketOf(entry);
}

/** Listed tickets with a flag or a note (shown on Setup). */
export function countNoted(sql: Statements): number {
  return (sql.statement('SELECT COALESCE(SUM(noted), 0) AS n FROM list_blocks').get() as { n: number }).n;
}
