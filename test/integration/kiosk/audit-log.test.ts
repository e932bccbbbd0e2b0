/**
 * The kiosk's hash-chained audit log (docs/kiosk.md "The kiosk's audit log"): a real SQLite file, edited,
 * deleted from and reordered behind the store's back, as someone with the kiosk's disk would; verifyLog finds
 * the first broken record and names it. The head is what the heartbeat reports.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { chainFields, chainHash, GENESIS_HASH, KIOSK_LOG_CHAIN_FIELDS } from '../../../protocol/audit-chain.js';
import type { Verdict } from '../../../protocol/index.js';
import { LocalStore, type NewScan } from '../../../main/kiosk/store/local-store.js';
import { tempDir } from '../../support/temp-dir.js';

const stores: LocalStore[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const newScan = (tid: string): NewScan => ({
  code: `tkt1.${tid}`,
  iss: 'https://tickets.example.test',
  tid,
  eid: 'EVT',
  gate_id: 'A',
  scanner_id: 'scanner-1',
  scanned_at: new Date().toISOString(),
  signature_status: 'valid',
  queue_state: 'sending',
  action: 'entry',
});

const admit = (tid: string): Verdict => ({
  kind: 'admit',
  decided_at: new Date().toISOString(),
  offline: false,
  decided_by: 'issuer',
  ticket: { tid, eid: 'EVT' },
});

/** A store with three scans (scan, verdict and answer each) and a repeat read: 10 records. */
function storeWithLog(): { path: string; store: LocalStore } {
  const { dir, cleanup } = tempDir('kiosk-audit-');
  cleanups.push(cleanup);
  const path = join(dir, 'kiosk.db');
  const store = LocalStore.open(path);
  stores.push(store);
  for (const tid of ['T1', 'T2', 'T3']) {
    const scan = store.insertScan(newScan(tid));
    store.decideScan(scan.idempotency_key, admit(tid), 'done');
    store.recordAnswer(scan.idempotency_key, { status: 'valid', body: {}, answeredAt: new Date().toISOString(), final: 'done' });
  }
  store.logRead({
    at: new Date().toISOString(),
    kind: 'repeat_read',
    origin: 'window',
    tid: 'T3',
    detail: 'a second read of the same code',
  });
  return { path, store };
}

function tamper(path: string, ...statements: string[]): void {
  const db = new Database(path);
  for (const sql of statements) db.exec(sql);
  db.close();
}

describe("the kiosk's audit log", () => {
  it('chains every scan, verdict, answer and read; verifyLog says OK with the count and the head', () => {
    const { path, store } = storeWithLog();
    const check = store.verifyLog();
    expect(check).toMatchObject({ type: 'log_check', ok: true, records: 10, broken: null, head: { position: 10 } });
    expect(store.logHead()).toEqual(check.head);
    // Re-verifiable from the file alone with the documented encoding.
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as Record<string, string | number>[];
    db.close();
    expect(rows.map((row) => row.kind)).toEqual([
      'scan',
      'verdict',
      'answer',
      'scan',
      'verdict',
      'answer',
      'scan',
      'verdict',
      'answer',
      'read',
    ]);
    let prev = GENESIS_HASH;
    for (const row of rows) {
      expect(row.hash).toBe(chainHash(prev, chainFields(row, KIOSK_LOG_CHAIN_FIELDS)));
      prev = row.hash as string;
    }
    expect(check.head.hash).toBe(prev);
  });

  it('finds an edited record and names it', () => {
    const { path, store } = storeWithLog();
    tamper(path, `UPDATE audit_log SET detail = '{"kind":"refuse"}' WHERE seq = 5`);
    const check = store.verifyLog();
    expect(check.ok).toBe(false);
    expect(check.broken).toMatchObject({ id: 5, kind: 'hash_mismatch' });
    expect(check.broken?.message).toContain('record id 5 (position 5)');
    expect(check.records).toBe(5);
  });

  it('finds a deleted record and a reordering', () => {
    const { path, store } = storeWithLog();
    tamper(path, 'DELETE FROM audit_log WHERE seq = 4');
    expect(store.verifyLog().broken).toMatchObject({ id: 5, kind: 'gap' });
    expect(store.verifyLog().broken?.message).toContain('position 4 is missing');

    const other = storeWithLog();
    tamper(
      other.path,
      'UPDATE audit_log SET seq = 100 WHERE seq = 2',
      'UPDATE audit_log SET seq = 2 WHERE seq = 3',
      'UPDATE audit_log SET seq = 3 WHERE seq = 100',
    );
    expect(other.store.verifyLog().broken).toMatchObject({ id: 2, kind: 'reordered' });
  });

  it('a rebuilt log (every hash recomputed) verifies, but its head contradicts the one reported before', () => {
    const { path, store } = storeWithLog();
    const reported = store.logHead();
    // The attacker rewrites record 2 and recomputes the whole chain from there with the public encoding.
    const db = new Database(path);
    db.prepare(`UPDATE audit_log SET detail = '{"kind":"refuse"}' WHERE seq = 2`).run();
    let prev = GENESIS_HASH;
    for (const row of db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as Record<string, string | number>[]) {
      const hash = chainHash(prev, chainFields(row, KIOSK_LOG_CHAIN_FIELDS));
      db.prepare('UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?').run(prev, hash, row.seq);
      prev = hash;
    }
    db.close();
    expect(store.verifyLog().ok).toBe(true);
    expect(store.logHead().position).toBe(reported.position);
    expect(store.logHead().hash).not.toBe(reported.hash); // what the issuer's kept heads catch (audit verify)
  });
});
