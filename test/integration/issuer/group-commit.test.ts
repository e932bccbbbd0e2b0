import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { SqliteDatabase } from '../../../issuer/store/sqlite-database.js';

let dir: string;
let db: Database.Database;
let observer: Database.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
  db = new Database(path.join(dir, 'test.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  observer = new Database(path.join(dir, 'test.db'), { readonly: true });
});

afterEach(() => {
  observer.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const count = () => (observer.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;

test('jobs of one tick run in order in one transaction; a failing job undoes only itself; results come after the commit', async () => {
  const commit = new SqliteDatabase(db);
  const seenByLaterJob: string[] = [];
  const visibleAtResolve: number[] = [];
  const a = commit.write(async (tx) => (await tx.run("INSERT INTO t VALUES ('a')")).changes);
  const b = commit.write(async (tx) => {
    await tx.run("INSERT INTO t VALUES ('b')");
    await tx.run("INSERT INTO t VALUES ('a')"); // primary key violation
  });
  const c = commit.write(async (tx) => {
    expect(db.inTransaction).toBe(true);
    seenByLaterJob.push(...(await tx.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k));
    return 'c';
  });
  for (const p of [a, c]) void p.then(() => visibleAtResolve.push(count()));
  expect(count()).toBe(0); // nothing runs before the batch is flushed
  await expect(a).resolves.toBe(1);
  await expect(b).rejects.toThrow(/UNIQUE/);
  await expect(c).resolves.toBe('c');
  expect(seenByLaterJob).toEqual(['a']);
  expect(visibleAtResolve).toEqual([1, 1]); // committed and visible to another connection when callers hear back
  await commit.drained();
});

test('drained() waits for queued work', async () => {
  const commit = new SqliteDatabase(db);
  void commit.write((tx) => tx.run("INSERT INTO t VALUES ('x')"));
  await commit.drained();
  expect(count()).toBe(1);
});

test("the group commit's connection keeps its jobs' savepoint journals in memory, not in temporary files", () => {
  // docs/benchmarks.md "Fewer writes per check-in": a check-in's savepoint journal spilled to a file on every job.
  expect(db.pragma('temp_store', { simple: true })).toBe(0);
  new SqliteDatabase(db);
  expect(db.pragma('temp_store', { simple: true })).toBe(2);
});
