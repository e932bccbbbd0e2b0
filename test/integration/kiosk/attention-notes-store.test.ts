/**
 * The synced attention notes in kiosk.db (main/kiosk/store/notes.ts; docs/kiosk.md "Attention notes"), on a real
 * SQLite file: pages applied in change order, a cleared row deleted, the type rules replaced whole, `reset` and
 * another event's list starting over, the cursor kept across a restart, and the same answer the issuer gives
 * (ticket flag OR type flag, the type's note first).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { NOTES_COMPACT_MIGRATION } from '../../../main/kiosk/store/database.js';
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

  it('keeps the list compact: a ULID tid as its 16 bytes, a note of several tickets once, nothing left when cleared', () => {
    const path = file();
    const store = LocalStore.open(path);
    const [a, b, c] = ['01JF3Q5W9ZK8X2N4R6T8V0Y2A4', '01JF3Q5W9ZK8X2N4R6T8V0Y2A5', '01JF3Q5W9ZK8X2N4R6T8V0Y2A6'];
    const page = (tickets: Array<[string, 0 | 1, string | null]>, syncedAt: string | null) =>
      store.attentionNotes.applyPage({
        ...owner,
        tickets,
        types: [],
        parties: [[c, 4]],
        idBands: [[b, 'under']],
        cursor: 'c.1',
        reset: false,
        syncedAt,
      });
    page(
      [
        [a, 1, 'Wheelchair user: side door'],
        [b, 0, 'Wheelchair user: side door'],
        [c, 0, 'Guest of the artist'],
        ['tkt_text', 0, 'Wheelchair user: side door'],
      ],
      '2026-12-02T10:00:00.000Z',
    );
    expect(store.attentionNotes.attentionOf(owner, a, null)).toEqual({ required: true, notes: ['Wheelchair user: side door'] });
    expect(store.attentionNotes.attentionOf(owner, 'tkt_text', null)).toEqual({ required: false, notes: ['Wheelchair user: side door'] });
    expect(store.attentionNotes.partySizeOf(owner, c)).toBe(4);
    expect(store.attentionNotes.idCheckOf(owner, b, null, 'Bo')).toBeNull(); // no type check: the band alone asks nothing
    store.close();

    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT tid, typeof(note) AS kind FROM listed_tickets ORDER BY tid').all() as {
      tid: Buffer | string;
      kind: string;
    }[];
    // Three ULIDs as 16 bytes, the other tid as its text (a text sorts before a BLOB); the shared note once, for three rows.
    expect(rows.map((row) => (Buffer.isBuffer(row.tid) ? row.tid.length : row.tid))).toEqual(['tkt_text', 16, 16, 16]);
    expect(rows.map((row) => row.kind).sort()).toEqual(['integer', 'integer', 'integer', 'text']);
    expect(db.prepare('SELECT text FROM list_texts').all()).toEqual([{ text: 'Wheelchair user: side door' }]);
    db.close();

    // A complete sync where nobody has the shared note any longer: the text goes too.
    const again = LocalStore.open(path);
    again.attentionNotes.applyPage({
      ...owner,
      tickets: [a, b, 'tkt_text'].map((tid) => [tid, 0, null] as [string, 0, null]),
      types: [],
      cursor: 'c.2',
      reset: false,
      syncedAt: '2026-12-02T11:00:00.000Z',
    });
    expect(again.attentionNotes.count()).toBe(1);
    again.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT COUNT(*) AS n FROM list_texts').get()).toEqual({ n: 0 });
    after.close();
  });

  it(`migration ${NOTES_COMPACT_MIGRATION} moves the rows a kiosk has from the four tables of before, offline, with nothing lost`, () => {
    const path = file();
    LocalStore.open(path).close();
    // The file as the version before had it: the four per-kind tables (kiosk.db migrations 4 to 7), filled.
    const old = new Database(path);
    old.exec(`
      DROP TABLE listed_tickets; DROP TABLE list_texts;
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
    expect(tables).toContain('listed_tickets');
    db.close();
  });
});
