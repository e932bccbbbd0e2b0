/**
 * The event's revoked scanners and staff badges in kiosk.db (main/kiosk/store/revocations.ts revokedStaff; docs/kiosk.md
 * "Revocation list"), on a real SQLite file: both kept the same way, with the event they were synced for, and read
 * only for that event. A file written by a kiosk of before the event ids (a bare list of badge ids) keeps its row, which
 * is read as the revocation list's event's until a sync writes the list with its event.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { tempDir } from '../../support/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function file(): string {
  const { dir, cleanup } = tempDir('revoked-staff-');
  cleanups.push(cleanup);
  return join(dir, 'kiosk.db');
}

const settingRow = (path: string, key: string): unknown => {
  const db = new Database(path, { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? JSON.parse(row.value) : undefined;
  } finally {
    db.close();
  }
};

describe('revoked scanners and badges in kiosk.db', () => {
  it('are both kept with their event and read only for it, across a restart', () => {
    const path = file();
    let store = LocalStore.open(path);
    store.saveRevokedScanners('evt_a', ['scn_lost']);
    store.saveRevokedBadges('evt_a', ['stf_lost', 'stf_gone']);
    store.close();

    store = LocalStore.open(path);
    expect([...store.revokedScanners('evt_a')]).toEqual(['scn_lost']);
    expect(store.getRevokedBadges('evt_a')).toEqual(['stf_lost', 'stf_gone']);
    // Enrolled for another event meanwhile: the old event's lists do not count for it.
    expect([...store.revokedScanners('evt_b')]).toEqual([]);
    expect(store.getRevokedBadges('evt_b')).toEqual([]);
    store.saveRevokedBadges('evt_b', ['stf_b']);
    expect(store.getRevokedBadges('evt_b')).toEqual(['stf_b']);
    expect(store.getRevokedBadges('evt_a')).toEqual([]);
    store.close();
    // The same shape for both: the event and the ids.
    expect(settingRow(path, 'lan_revoked_scanners')).toEqual({ eid: 'evt_a', scanner_ids: ['scn_lost'] });
    expect(settingRow(path, 'revoked_staff_badges')).toEqual({ eid: 'evt_b', sids: ['stf_b'] });
  });

  it('a file of before the event ids: its bare badge list is read as the revocation list’s event’s, and kept', () => {
    const path = file();
    LocalStore.open(path).close();
    // What an older kiosk wrote: the list without its event, beside the revocation list's own record.
    const db = new Database(path);
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('revoked_badges', JSON.stringify(['stf_old']));
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(
      'revocations',
      JSON.stringify({ iss: 'https://tickets.example', eid: 'evt_a', cursor: 'c1', synced_at: null }),
    );
    db.close();

    const store = LocalStore.open(path);
    expect(store.getRevokedBadges('evt_a')).toEqual(['stf_old']);
    expect(store.getRevokedBadges('evt_b')).toEqual([]);
    // The next sync writes the list with its event; it wins, and the old row is left as it was.
    store.saveRevokedBadges('evt_a', ['stf_new']);
    expect(store.getRevokedBadges('evt_a')).toEqual(['stf_new']);
    store.close();
    expect(settingRow(path, 'revoked_badges')).toEqual(['stf_old']);
  });

  it('without the revocation list’s record, a bare list still counts (a revoked badge stays revoked)', () => {
    const path = file();
    LocalStore.open(path).close();
    const db = new Database(path);
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('revoked_badges', JSON.stringify(['stf_old']));
    db.close();
    const store = LocalStore.open(path);
    expect(store.getRevokedBadges('evt_a')).toEqual(['stf_old']);
    store.close();
  });
});
