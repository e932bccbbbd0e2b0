/**
 * The synced attention notes in kiosk.db (main/kiosk/store/notes.ts; docs/kiosk.md "Attention notes"), on a real
 * SQLite file: pages applied in change order, a cleared row deleted, the type rules replaced whole, `reset` and
 * another event's list starting over, the cursor kept across a restart, and the same answer the issuer gives
 * (ticket flag OR type flag, the type's note first).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { LIST_BLOCKS_MIGRATION, NOTES_COMPACT_MIGRATION } from '../../../main/kiosk/store/database.js';
import { tidKey } from '../../../main/kiosk/store/list-migrations.js';
import { compareTids } from '../../../main/kiosk/store/listed-tickets.js';
import type { AttentionNotesPage } from '../../../main/kiosk/store/notes.js';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { tempDir } from '../../support/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function file(): string {
  const { dir, cleanup } = tempDir('attention-notes-');
  cleanups.push(cleanup);
  return join(dir, 'kiosk.db');
}

const owner = { iss: 'https://issuer.test', eid: 'evt_a' };
const vip = { ticket_type: 'VIP', attention: false, note: 'Wristband at the desk' };

describe('attention notes in kiosk.db', () => {
  it('applies pages, deletes cleared rows, keeps the cursor across a restart, and answers as the issuer would', () => {
    const path = file();
    let store = LocalStore.open(path);
    const notes = store.attentionNotes;
    expect(notes.attentionOf(owner, 'tkt_ada', 'VIP')).toBeNull(); // before the first page: nothing
    notes.applyPage({
      ...owner,
      tickets: [
        ['tkt_ada', 1, 'Wheelchair user'],
        ['tkt_bob', 0, 'Press'],
      ],
      types: [vip],
      cursor: 'c0ffee0000000000.2',
      reset: true,
      syncedAt: null,
    });
    expect(notes.attentionOf(owner, 'tkt_ada', 'VIP')).toEqual({ required: true, notes: ['Wristband at the desk', 'Wheelchair user'] });
    expect(notes.attentionOf(owner, 'tkt_bob', null)).toEqual({ required: false, notes: ['Press'] });
    expect(notes.attentionOf(owner, 'tkt_none', 'VIP')).toEqual({ required: false, notes: ['Wristband at the desk'] });
    expect(notes.attentionOf(owner, 'tkt_none', 'Day')).toBeNull();
    // Another event's list says nothing about this one.
    expect(notes.attentionOf({ ...owner, eid: 'evt_b' }, 'tkt_ada', 'VIP')).toBeNull();

    // The next page: bob cleared, the type rule gone (every page carries the rules whole).
    notes.applyPage({
      ...owner,
      tickets: [['tkt_bob', 0, null]],
      types: [],
      cursor: 'c0ffee0000000000.3',
      reset: false,
      syncedAt: '2026-07-18T19:00:00.000Z',
    });
    store.close();
    store = LocalStore.open(path);
    expect(store.attentionNotes.sync()).toEqual({ ...owner, cursor: 'c0ffee0000000000.3', synced_at: '2026-07-18T19:00:00.000Z' });
    expect(store.attentionNotes.count()).toBe(1);
    expect(store.attentionNotes.attentionOf(owner, 'tkt_bob', null)).toBeNull();
    expect(store.attentionNotes.attentionOf(owner, 'tkt_ada', 'VIP')).toEqual({ required: true, notes: ['Wheelchair user'] });

    // `reset` starts over: what the page does not carry is gone.
    store.attentionNotes.applyPage({
      ...owner,
      tickets: [['tkt_cleo', 0, 'Minor']],
      types: [],
      cursor: 'beef000000000000.1',
      reset: true,
      syncedAt: null,
    });
    expect(store.attentionNotes.attentionOf(owner, 'tkt_ada', 'VIP')).toBeNull();
    expect(store.attentionNotes.attentionOf(owner, 'tkt_cleo', null)).toEqual({ required: false, notes: ['Minor'] });
    expect(store.attentionNotes.sync()?.synced_at).toBeNull();

    // Another event's list replaces this one.
    store.attentionNotes.applyPage({
      ...owner,
      eid: 'evt_b',
      tickets: [],
      types: [],
      cursor: 'beef000000000000.2',
      reset: false,
      syncedAt: null,
    });
    expect(store.attentionNotes.count()).toBe(0);
    store.close();
  });

  it('keeps the list in compressed blocks: every entry found after splits, updates, deletions and a reset; nothing left when cleared', () => {
    const path = file();
    const store = LocalStore.open(path);
    const notes = store.attentionNotes;
    // 1,000 ULID-like tids in order, and tids that sort before them, between them and after them, among them
    // characters whose order in JavaScript differs from SQLite's (a surrogate pair against U+FFFD).
    const tids = Array.from({ length: 1000 }, (_, i) => `01JF3Q5W9ZK8X2N4R6T8V${String(i).padStart(5, '0')}`);
    const odd = ['!first', '01JF3Q5W9ZK8X2N4R6T8V00500a', 'tkt_\u{1F600}', 'tkt_\uFFFD', 'tkt_é'];
    const page = (tickets: Array<[string, 0 | 1, string | null]>, extra: Partial<AttentionNotesPage> = {}) =>
      notes.applyPage({ ...owner, tickets, types: [], cursor: 'c.1', reset: false, syncedAt: '2026-12-02T10:00:00.000Z', ...extra });
    const t_shirt = [{ item: 'T-shirt M', count: 1 }];
    const record = { hid: 'h-1', at: '2026-12-02T09:00:00.000Z', gate: 'North', scanner: 'Door 1' };
    const given = [{ ...record, item: 'T-shirt M' }];
    page(
      tids.map((tid, i) => [tid, (i % 5 === 0 ? 1 : 0) as 0 | 1, `Note ${i}`]),
      { parties: [[tids[300]!, 4]], idBands: [[tids[600]!, 'under']], handouts: [[tids[900]!, t_shirt, given]] },
    );
    page(odd.map((tid) => [tid, 0, `Note of ${tid}`]));
    // 1,005 entries: the first page's 1,000 written as four blocks, the tids of the second page put in theirs.
    const blocks = () => {
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT first, noted FROM list_blocks ORDER BY first').all() as { first: string; noted: number }[];
      db.close();
      return rows;
    };
    expect(blocks().length).toBe(4);
    expect(blocks()[0]!.first).toBe('!first');
    expect(notes.count()).toBe(1005);
    for (const [i, tid] of tids.entries())
      expect(notes.attentionOf(owner, tid, null)).toEqual({ required: i % 5 === 0, notes: [`Note ${i}`] });
    for (const tid of odd) expect(notes.attentionOf(owner, tid, null)).toEqual({ required: false, notes: [`Note of ${tid}`] });
    expect(notes.attentionOf(owner, '01JF3Q5W9ZK8X2N4R6T8V00500b', null)).toBeNull();
    expect(notes.partySizeOf(owner, tids[300]!)).toBe(4);
    expect(notes.partySizeOf(owner, tids[301]!)).toBe(1);
    expect(store.handouts.handoutsFor(tids[900]!, null, 'Door 2', null)).toEqual([{ item: 'T-shirt M', count: 1, given: [record] }]);

    // A later page: some cleared, one changed, and the party size of another gone (a listed ticket without a row: one).
    page([
      [tids[0]!, 0, null],
      [tids[301]!, 1, 'Changed'],
      [tids[300]!, 0, 'Note 300'],
      ['tkt_\u{1F600}', 0, null],
    ]);
    expect(notes.attentionOf(owner, tids[0]!, null)).toBeNull();
    expect(notes.attentionOf(owner, tids[301]!, null)).toEqual({ required: true, notes: ['Changed'] });
    expect(notes.partySizeOf(owner, tids[300]!)).toBe(1);
    expect(notes.attentionOf(owner, 'tkt_\u{1F600}', null)).toBeNull();
    expect(notes.attentionOf(owner, 'tkt_\uFFFD', null)).toEqual({ required: false, notes: ['Note of tkt_\uFFFD'] });
    expect(notes.count()).toBe(1003);
    expect(blocks().reduce((sum, block) => sum + block.noted, 0)).toBe(1003);

    // Every ticket cleared: no block left.
    page([...tids, ...odd].map((tid) => [tid, 0, null] as [string, 0, null]));
    expect(notes.count()).toBe(0);
    expect(blocks()).toEqual([]);
    store.close();
  });

  it('orders tids as SQLite orders the blocks (UTF-8 bytes), where JavaScript would not', () => {
    const db = new Database(':memory:');
    const pairs: Array<[string, string]> = [
      ['tkt_\u{1F600}', 'tkt_\uFFFD'],
      ['tkt_\uE000', 'tkt_\u{10000}'],
      ['tkt_\u{1F600}', 'tkt_\u{1F601}'],
      ['01JF3Q5W9ZK8X2N4R6T8V0Y2A4', '01JF3Q5W9ZK8X2N4R6T8V0Y2A5'],
      ['tkt_é', 'tkt_z'],
      ['same', 'same'],
    ];
    for (const [a, b] of pairs) {
      const { order } = db.prepare('SELECT (? > ?) - (? < ?) AS "order"').get(a, b, a, b) as { order: number };
      expect(compareTids(a, b)).toBe(order);
      expect(compareTids(b, a)).toBe(order === 0 ? 0 : -order); // not -0: toBe tells it from 0
    }
    expect('tkt_\u{1F600}' < 'tkt_\uFFFD').toBe(true); // JavaScript's own order differs here
    db.close();
  });

  it(`migration ${NOTES_COMPACT_MIGRATION} moves the rows a kiosk has from the four tables of before, offline, with nothing lost`, () => {
    const path = file();
    LocalStore.open(path).close();
    // The file as the version before had it: the four per-kind tables (kiosk.db migrations 4 to 7), filled.
    const old = new Database(path);
    old.exec(`
      DROP TABLE list_blocks;
      CREATE TABLE attention_tickets (tid TEXT PRIMARY KEY, attention INTEGER NOT NULL, note TEXT) WITHOUT ROWID;
      CREATE TABLE id_check_bands (tid TEXT PRIMARY KEY, band TEXT NOT NULL CHECK (band IN ('over', 'under', 'unknown'))) WITHOUT ROWID;
      CREATE TABLE party_sizes (tid TEXT PRIMARY KEY, size INTEGER NOT NULL CHECK (size BETWEEN 2 AND 1000)) WITHOUT ROWID;
      CREATE TABLE handout_tickets (tid TEXT PRIMARY KEY, items TEXT NOT NULL, given TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO attention_sync (id, iss, eid, cursor, synced_at) VALUES (1, '${owner.iss}', '${owner.eid}', 'c.7', '2026-12-02T09:00:00.000Z');
      INSERT INTO attention_tickets VALUES ('01JF3Q5W9ZK8X2N4R6T8V0Y2A4', 1, 'Allergy: nuts'), ('tkt_old', 0, 'Press');
      INSERT INTO id_check_bands VALUES ('01JF3Q5W9ZK8X2N4R6T8V0Y2A4', 'over');
      INSERT INTO party_sizes VALUES ('01JF3Q5W9ZK8X2N4R6T8V0Y2A9', 5);
      INSERT INTO handout_tickets VALUES ('01JF3Q5W9ZK8X2N4R6T8V0Y2A9', '[{"item":"T-shirt M","count":1}]', '[]');
    `);
    old.pragma(`user_version = ${NOTES_COMPACT_MIGRATION}`);
    old.close();

    const store = LocalStore.open(path);
    const notes = store.attentionNotes;
    expect(notes.sync()).toMatchObject({ cursor: 'c.7', synced_at: '2026-12-02T09:00:00.000Z' });
    expect(notes.attentionOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A4', null)).toEqual({ required: true, notes: ['Allergy: nuts'] });
    expect(notes.attentionOf(owner, 'tkt_old', null)).toEqual({ required: false, notes: ['Press'] });
    expect(notes.partySizeOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A9')).toBe(5);
    expect(store.handouts.handoutsFor('01JF3Q5W9ZK8X2N4R6T8V0Y2A9', null, 'Door 1', null)).toEqual([
      { item: 'T-shirt M', count: 1, given: [] },
    ]);
    expect(notes.count()).toBe(2);
    store.close();
    const db = new Database(path, { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).not.toContain('attention_tickets');
    expect(tables).not.toContain('listed_tickets');
    expect(tables).toContain('list_blocks');
    db.close();
  });
  it(`migration ${LIST_BLOCKS_MIGRATION} moves the rows of listed_tickets, with their shared texts, into the blocks, offline, with nothing lost`, () => {
    const path = file();
    LocalStore.open(path).close();
    // The file as the version before had it (kiosk.db migration 8): one row per ticket, a ULID's 16 bytes as its key,
    // a note of several tickets once in list_texts, the handouts as the page sent them.
    const old = new Database(path);
    old.exec(`
      DROP TABLE list_blocks;
      CREATE TABLE listed_tickets (tid BLOB PRIMARY KEY, note, flags INTEGER NOT NULL, handouts TEXT) WITHOUT ROWID;
      CREATE TABLE list_texts (h INTEGER PRIMARY KEY, text TEXT NOT NULL);
      INSERT INTO attention_sync (id, iss, eid, cursor, synced_at) VALUES (1, '${owner.iss}', '${owner.eid}', 'c.9', '2026-12-02T12:00:00.000Z');
      INSERT INTO list_texts VALUES (281474976710655, 'Wheelchair user: side door');
    `);
    const put = old.prepare('INSERT INTO listed_tickets (tid, note, flags, handouts) VALUES (?, ?, ?, ?)');
    const record = { hid: 'h-7', at: '2026-12-02T11:00:00.000Z', gate: null, scanner: 'Door 3' };
    const given = [{ ...record, item: 'T-shirt M' }];
    put.run(tidKey('01JF3Q5W9ZK8X2N4R6T8V0Y2A4'), 281474976710655n, 1, null);
    put.run(tidKey('01JF3Q5W9ZK8X2N4R6T8V0Y2A5'), 281474976710655n, 0 | (2 << 1), null);
    put.run(
      tidKey('01JF3Q5W9ZK8X2N4R6T8V0Y2A6'),
      'Guest of the artist',
      6 << 3,
      JSON.stringify([[{ item: 'T-shirt M', count: 1 }], given]),
    );
    put.run('tkt_text', 'Press', 0, null);
    old.pragma(`user_version = ${LIST_BLOCKS_MIGRATION}`);
    old.close();

    const store = LocalStore.open(path);
    const notes = store.attentionNotes;
    expect(notes.sync()).toMatchObject({ cursor: 'c.9', synced_at: '2026-12-02T12:00:00.000Z' });
    expect(notes.attentionOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A4', null)).toEqual({ required: true, notes: ['Wheelchair user: side door'] });
    expect(notes.attentionOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A5', null)).toEqual({
      required: false,
      notes: ['Wheelchair user: side door'],
    });
    expect(notes.idCheckOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A5', null, 'Bo')).toBeNull(); // no type check: the band alone asks nothing
    expect(notes.partySizeOf(owner, '01JF3Q5W9ZK8X2N4R6T8V0Y2A6')).toBe(6);
    expect(notes.attentionOf(owner, 'tkt_text', null)).toEqual({ required: false, notes: ['Press'] });
    expect(store.handouts.handoutsFor('01JF3Q5W9ZK8X2N4R6T8V0Y2A6', null, 'Door 1', null)).toEqual([
      { item: 'T-shirt M', count: 1, given: [record] },
    ]);
    expect(notes.count()).toBe(4);
    store.close();
    const db = new Database(path, { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).not.toContain('listed_tickets');
    expect(tables).not.toContain('list_texts');
    expect(db.pragma('user_version', { simple: true })).toBe(LIST_BLOCKS_MIGRATION + 1);
    db.close();
  });
});
