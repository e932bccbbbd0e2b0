/**
 * A damaged kiosk.db never strands the door's offline admissions
 * (docs/kiosk.md "Storage integrity").
 *
 * At start the file gets SQLite's quick check. If it cannot be opened or the
 * check fails:
 * 1. the file and its -wal/-shm are moved aside (`kiosk.db.damaged-<time>`),
 *    never deleted;
 * 2. a private copy of them is read row by row (a zeroed header is rebuilt
 *    on the copy first), so one bad page loses only the rows on it;
 * 3. a fresh store gets every readable setting (identity, enrollment,
 *    calibration), discovery document and scan, queued scans keeping their
 *    idempotency keys, so each still reaches the issuer exactly once;
 * 4. what happened is kept in the new store and shown to IT.
 *
 * While the kiosk runs, an error that says the file is damaged is a storage
 * fault (isStorageFault): the door says "call IT" instead of "scan again".
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { LocalStore, type SalvagedRows } from './local-store.js';

export interface StorageRecovery {
  at: string;
  /** Why the file was set aside, in SQLite's words. */
  reason: string;
  damaged_file: string;
  /** Queued scans (not yet answered by the issuer) read back and queued again. */
  recovered_queued: number;
  /** All scans read back (the queued ones and the history that answers "already admitted here"). */
  recovered_scans: number;
  enrollment_kept: boolean;
}

/** SQLite result codes that mean the file itself is damaged or unreadable. */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|IOERR)/;

export function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/** The store at `path`, recovered into a fresh file if the old one is damaged. */
export function openStoreWithRecovery(
  path: string,
  options: { now?: () => Date; log?: (line: string) => void } = {},
): { store: LocalStore; recovery: StorageRecovery | null } {
  const damage = damageOf(path);
  if (damage === null) return { store: LocalStore.open(path), recovery: null };
  const now = (options.now ?? (() => new Date()))();
  const aside = `${path}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  const salvaged = salvage(aside);
  const store = LocalStore.open(path);
  store.restoreSalvaged(salvaged);
  const recovery: StorageRecovery = {
    at: now.toISOString(),
    reason: damage,
    damaged_file: aside,
    recovered_queued: salvaged.scans.filter((scan) => ['pending', 'sending', 'held'].includes(String(scan['queue_state']))).length,
    recovered_scans: salvaged.scans.length,
    enrollment_kept: salvaged.settings.some(([key]) => key === 'enrollment'),
  };
  store.saveStorageRecovery(recovery);
  options.log?.(recoveryMessage(recovery));
  return { store, recovery };
}

/** For the log and the Setup/Ready screens: what happened, what was saved, where the old file is. */
export function recoveryMessage(recovery: StorageRecovery): string {
  const enrollment = recovery.enrollment_kept
    ? 'The enrollment was kept.'
    : 'The enrollment could not be read: enroll this kiosk again with a setup code.';
  return (
    `The kiosk's storage was damaged (${recovery.reason}) and was replaced at ${recovery.at}. ` +
    `${recovery.recovered_queued} queued scan(s) were recovered and will be sent to the issuer (${recovery.recovered_scans} scan(s) read back in all). ` +
    `${enrollment} The damaged file was kept as ${recovery.damaged_file}.`
  );
}

/** Null when the file is healthy (or absent); otherwise what is wrong with it. */
function damageOf(path: string): string | null {
  if (!existsSync(path) || statSync(path).size === 0) return null;
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { fileMustExist: true });
    const result = db.pragma('quick_check', { simple: true });
    return result === 'ok' ? null : `quick_check: ${String(result)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    try {
      db?.close();
    } catch {
      // closing a damaged file may fail too
    }
  }
}

type TableName = 'settings' | 'discovery' | 'scans';

/** Every row that can still be read from the damaged file, from a private copy (the original stays as it was). */
function salvage(damagedFile: string): SalvagedRows {
  const work = mkdtempSync(join(tmpdir(), 'kiosk-salvage-'));
  const copy = join(work, basename(damagedFile));
  try {
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(damagedFile + suffix)) copyFileSync(damagedFile + suffix, copy + suffix);
    repairHeader(copy);
    let db: Database.Database;
    try {
      db = new Database(copy, { fileMustExist: true });
    } catch {
      return { settings: [], discovery: [], scans: [] };
    }
    try {
      return {
        settings: readRows(db, 'settings').map((row) => [String(row['key']), String(row['value'])] as [string, string]),
        discovery: readRows(db, 'discovery'),
        scans: readRows(db, 'scans'),
      };
    } finally {
      try {
        db.close();
      } catch {
        // as above
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The highest rowid to probe in a damaged table. */
function lastRowid(db: Database.Database, table: TableName): number {
  try {
    return (db.prepare(`SELECT max(rowid) AS last FROM ${table}`).get() as { last: number | null }).last ?? 0;
  } catch {
    // The rowid index itself is damaged: probe up to the AUTOINCREMENT counter, or a bound.
    try {
      return (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`).get(table) as { seq: number } | undefined)?.seq ?? 100_000;
    } catch {
      return 100_000;
    }
  }
}

/**
 * All readable rows of `table`: at once if the table is intact, otherwise
 * one rowid at a time, so a damaged page costs only its own rows.
 */
function readRows(db: Database.Database, table: TableName): Record<string, unknown>[] {
  try {
    return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
  } catch {
    // fall through to row by row
  }
  const last = lastRowid(db, table);
  let one: Database.Statement;
  try {
    one = db.prepare(`SELECT * FROM ${table} WHERE rowid = ?`);
  } catch {
    return []; // the schema itself cannot be read: nothing of this table can be found
  }
  const rows: Record<string, unknown>[] = [];
  let failuresInARow = 0;
  for (let rowid = 1; rowid <= last; rowid++) {
    try {
      const row = one.get(rowid) as Record<string, unknown> | undefined;
      if (row) rows.push(row);
      failuresInARow = 0;
    } catch {
      // This row's page is damaged; the next rows may be on good pages.
      if (++failuresInARow > 50_000) break;
    }
  }
  return rows;
}

/**
 * A truncated file gets its page count corrected on the salvage copy; a
 * file whose 100-byte header was overwritten ("file is not a database")
 * gets a plausible header back: the kiosk's page size
 * (SQLite's default, 4096), the page count from the file size, WAL mode and
 * UTF-8. The schema and the rows live on the pages after it, untouched.
 */
function repairHeader(file: string): void {
  const bytes = readFileSync(file);
  if (bytes.length < 4096) return;
  if (bytes.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000') {
    // A truncated file: its header still counts the lost pages, and SQLite then refuses to read
    // even the pages that are there. Count only what is left.
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    if (pageSize >= 512 && bytes.readUInt32BE(28) * pageSize > bytes.length) {
      bytes.writeUInt32BE(Math.floor(bytes.length / pageSize), 28);
      writeFileSync(file, bytes);
    }
    return;
  }
  const header = Buffer.alloc(100);
  header.write('SQLite format 3\u0000', 0, 'latin1');
  header.writeUInt16BE(4096, 16); // page size
  header[18] = 2; // file format write version: WAL
  header[19] = 2; // read version: WAL
  header[21] = 64; // max embedded payload fraction
  header[22] = 32; // min embedded payload fraction
  header[23] = 32; // leaf payload fraction
  header.writeUInt32BE(1, 24); // file change counter
  header.writeUInt32BE(Math.floor(bytes.length / 4096), 28); // database size in pages
  header.writeUInt32BE(1, 40); // schema cookie
  header.writeUInt32BE(4, 44); // schema format number
  header.writeUInt32BE(1, 56); // text encoding: UTF-8
  header.writeUInt32BE(1, 92); // version-valid-for: equals the change counter, so the page count is believed
  header.writeUInt32BE(3_045_000, 96); // SQLite version that wrote it
  header.copy(bytes, 0);
  writeFileSync(file, bytes);
}
