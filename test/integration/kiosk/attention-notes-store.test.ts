/**
 * The synced attention notes in kiosk.db (main/kiosk/store/notes.ts; docs/kiosk.md "Attention notes"), on a real
 * SQLite file: pages applied in change order, a cleared row deleted, the type rules replaced whole, `reset` and
 * another event's list starting over, the cursor kept across a restart, and the same answer the issuer gives
 * (ticket flag OR type flag, the type's note first).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
});
