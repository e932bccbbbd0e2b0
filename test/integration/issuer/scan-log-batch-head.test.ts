/**
 * The scan log's chain head in SQLite's group commit (store/audit-log.ts, sql.ts BatchState): read once per batch,
 * moved by every append of the batch, written once before the COMMIT; a failing job's appends leave it as they
 * found it, and a batch whose head write fails stores nothing. On a real migrated file, watched from a second
 * connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../../issuer/store/sqlite-database.js';
import { appendScanLog } from '../../../issuer/store/checkins.js';
import { scanLogHead, verifyScanLog } from '../../../issuer/store/audit-log.js';
import type { ScanLogRow } from '../../../issuer/store/log-rows.js';

let dir: string;
let database: SqliteDatabase;
let observer: Database.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-log-batch-head-'));
  database = openSqliteDatabase(path.join(dir, 'issuer.db'));
  observer = new Database(path.join(dir, 'issuer.db'), { readonly: true });
  // Counts the head row's writes: the point of the change is how many there are.
  database.connection.exec(`
    CREATE TABLE head_writes (n INTEGER);
    CREATE TRIGGER count_head_writes AFTER UPDATE ON scan_log_head BEGIN INSERT INTO head_writes VALUES (1); END;`);
});

afterEach(async () => {
  observer.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const row = (tid: string): ScanLogRow => ({
  at: '2026-12-02T17:00:00.000Z',
  scanned_at: '2026-12-02T17:00:00.000Z',
  tid,
  eid: 'e1',
  scanner_id: 's1',
  api_key_id: 'k1',
  gate_id: null,
  idempotency_key: null,
  outcome: 'valid',
  details: null,
});

const storedHead = () => observer.prepare('SELECT position, hash FROM scan_log_head').get() as { position: number; hash: string };
const storedTids = () => (observer.prepare('SELECT tid FROM scan_log ORDER BY position').all() as { tid: string }[]).map((r) => r.tid);
const headWrites = () => (observer.prepare('SELECT COUNT(*) AS n FROM head_writes').get() as { n: number }).n;

test('one batch: every append continues the chain, a failed job leaves no trace in it, the head is written once', async () => {
  const seenInBatch: unknown[] = [];
  const jobs = [
    database.write((tx) => appendScanLog(tx, row('t1'))),
    database.write(async (tx) => {
      await appendScanLog(tx, row('failed'));
      throw new Error('this job fails after its append');
    }),
    database.write(async (tx) => {
      await appendScanLog(tx, row('t2'));
      await appendScanLog(tx, row('t3'));
    }),
    database.write(async (tx) => {
      // A later job of the same batch sees the head as the appends before it left it, and a whole chain.
      seenInBatch.push(await scanLogHead(tx), (await verifyScanLog(tx)).ok);
    }),
  ];
  const outcomes = await Promise.allSettled(jobs);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect(storedTids()).toEqual(['t1', 't2', 't3']);
  const head = storedHead();
  expect(head.position).toBe(3);
  expect(head.hash).toBe((observer.prepare('SELECT hash FROM scan_log WHERE position = 3').get() as { hash: string }).hash);
  expect(seenInBatch).toEqual([head, true]);
  expect(headWrites()).toBe(1);
  const report = await verifyScanLog(database.read);
  expect(report).toMatchObject({ ok: true, rows: 3, head, broken: null });

  // The next batch reads the stored head and goes on from it.
  await database.write((tx) => appendScanLog(tx, row('t4')));
  expect(storedHead().position).toBe(4);
  expect(headWrites()).toBe(2);
  expect((await verifyScanLog(database.read)).ok).toBe(true);
});

test('a batch whose head write fails stores none of its rows, and every job of it hears the failure', async () => {
  await database.write((tx) => appendScanLog(tx, row('before')));
  database.connection.exec(`CREATE TRIGGER refuse_head BEFORE UPDATE ON scan_log_head BEGIN SELECT RAISE(ABORT, 'head refused'); END;`);
  const outcomes = await Promise.allSettled([
    database.write((tx) => appendScanLog(tx, row('lost1'))),
    database.write((tx) => tx.run('INSERT INTO head_writes VALUES (99)')),
  ]);
  expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'fulfilled'))).toEqual([
    expect.stringMatching(/head refused/),
    expect.stringMatching(/head refused/),
  ]);
  expect(storedTids()).toEqual(['before']);
  expect(storedHead().position).toBe(1);
  expect((observer.prepare('SELECT COUNT(*) AS n FROM head_writes WHERE n = 99').get() as { n: number }).n).toBe(0);

  // Once the head can be written again, the chain goes on from the stored head, unbroken.
  database.connection.exec('DROP TRIGGER refuse_head');
  await database.write((tx) => appendScanLog(tx, row('after')));
  expect(storedTids()).toEqual(['before', 'after']);
  expect((await verifyScanLog(database.read)).ok).toBe(true);
});
