import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isUuidV4 } from '../../../protocol/index.js';
import { checkInRequestFor, LocalStore, SCHEMA_VERSION, type NewScan } from '../../../main/kiosk/store/local-store.js';
import { tempDir } from '../../support/temp-dir.js';

let dir: { dir: string; cleanup: () => void };
let path: string;
beforeEach(() => {
  dir = tempDir();
  path = join(dir.dir, 'kiosk.db');
});
afterEach(() => dir.cleanup());

const scan = (tid: string, overrides: Partial<NewScan> = {}): NewScan => ({
  code: `tkt1.${tid}`,
  iss: 'https://tickets.example.org',
  tid,
  eid: 'E1',
  gate_id: null,
  scanner_id: '8c3f2a44-4f0e-4c55-9a43-2f4f1c1c0b11',
  scanned_at: '2026-06-01T19:00:00.000Z',
  signature_status: 'valid',
  queue_state: 'pending',
  ...overrides,
});

describe('LocalStore', () => {
  it('opens in WAL with synchronous=FULL and migrates once', () => {
    const store = LocalStore.open(path);
    store.close();
    LocalStore.open(path).close(); // second open: no migration re-run
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    const probe = LocalStore.open(path);
    // synchronous is per connection: read it through the store's own connection
    expect((probe as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true })).toBe(2);
    probe.close();
  });

  it('lists double admissions through an index, also on a file made before the index existed, without a new schema version', () => {
    LocalStore.open(path).close();
    const old = new Database(path);
    old.exec('DROP INDEX scans_double_admissions'); // as a file written by an earlier version
    old.close();
    const store = LocalStore.open(path);
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT * FROM scans WHERE admitted_offline = 1 AND admitted_at IS NOT NULL AND result_status = 'already_used' ORDER BY seq`,
      )
      .all() as { detail: string }[];
    expect(plan.map((step) => step.detail).join('; ')).toContain('USING INDEX scans_double_admissions');
    store.close();
  });

  it('refuses a database from a newer app', () => {
    LocalStore.open(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => LocalStore.open(path)).toThrow(/newer/);
  });

  it('keeps the scanner id forever and the name editable', () => {
    const store = LocalStore.open(path);
    const first = store.identity();
    expect(isUuidV4(first.scanner_id)).toBe(true);
    store.setScannerName('  Door 3  ');
    expect(() => store.setScannerName('   ')).toThrow();
    store.close();
    const again = LocalStore.open(path);
    expect(again.identity()).toEqual({ scanner_id: first.scanner_id, scanner_name: 'Door 3' });
    again.close();
  });

  it('gives every scan its own UUID v4 key and rebuilds the same request body from it', () => {
    const store = LocalStore.open(path);
    const a = store.insertScan(scan('T1', { gate_id: 'G1' }));
    const b = store.insertScan(scan('T2', { signature_status: 'invalid' }));
    expect(isUuidV4(a.idempotency_key) && isUuidV4(b.idempotency_key)).toBe(true);
    expect(a.idempotency_key).not.toBe(b.idempotency_key);
    expect(checkInRequestFor(a)).toEqual({
      tid: 'T1',
      eid: 'E1',
      scanned_at: '2026-06-01T19:00:00.000Z',
      scanner_id: scan('T1').scanner_id,
      gate_id: 'G1',
      idempotency_key: a.idempotency_key,
    });
    expect(checkInRequestFor(b).signature_status).toBe('invalid');
    store.close();
  });

  it('puts scans that were in flight at a crash back in the queue, oldest first', () => {
    const store = LocalStore.open(path);
    store.insertScan(scan('T1', { queue_state: 'sending' }));
    store.insertScan(scan('T2'));
    expect(store.dueScans(Date.now(), 10).map((s) => s.tid)).toEqual(['T2']);
    store.close();
    const reopened = LocalStore.open(path);
    expect(reopened.dueScans(Date.now(), 10).map((s) => s.tid)).toEqual(['T1', 'T2']);
    expect(reopened.pendingCount()).toBe(2);
    reopened.close();
  });

  it('tracks admissions, retries and double admissions', () => {
    const store = LocalStore.open(path);
    const s = store.insertScan(scan('T1', { queue_state: 'sending' }));
    expect(store.firstAdmissionAt('T1')).toBeUndefined();
    store.decideScan(
      s.idempotency_key,
      {
        kind: 'admit',
        decided_at: '2026-06-01T19:00:01.000Z',
        offline: true,
        decided_by: 'offline_policy',
        ticket: { tid: 'T1', eid: 'E1', holder_name: 'Ada' },
      },
      'pending',
    );
    expect(store.firstAdmissionAt('T1')).toBe('2026-06-01T19:00:01.000Z');
    store.recordRetry(s.idempotency_key, Date.now() + 60_000, 'ECONNREFUSED');
    expect(store.dueScans(Date.now(), 10)).toHaveLength(0);
    expect(store.nextDueAt()).toBeGreaterThan(Date.now());
    store.recordAnswer(s.idempotency_key, {
      status: 'already_used',
      body: { status: 'already_used', ticket: { tid: 'T1', eid: 'E1', checked_in_at: '2026-06-01T18:00:00Z' } },
      answeredAt: '2026-06-01T19:05:00.000Z',
      final: 'done',
    });
    expect(store.pendingCount()).toBe(0);
    expect(store.scan(s.idempotency_key)?.attempts).toBe(2);
    expect(store.doubleAdmissions()).toEqual([
      {
        tid: 'T1',
        eid: 'E1',
        admitted_here_at: '2026-06-01T19:00:01.000Z',
        first_checked_in_at: '2026-06-01T18:00:00Z',
        conflict: 'already_used',
        holder_name: 'Ada',
        idempotency_key: s.idempotency_key,
      },
    ]);
    store.close();
  });
});
