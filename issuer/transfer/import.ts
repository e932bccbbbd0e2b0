/**
 * `import --from FILE`: merges an export of the same issuer into this data
 * dir, or creates the data dir from it (the venue laptop). docs/issuer.md
 * "Moving an issuer to the venue and back" states the rules; in short:
 *
 * - Nothing is lost: every row of the file is added unless this issuer has it.
 * - One `valid` per ticket: a ticket checked in on both instances keeps the
 *   EARLIER check-in; the other is a double admission, recorded in the audit
 *   log (scan_log) with outcome `import_conflict`, once. Unless both are the
 *   same admission at two moments (docs/protocol.md "Door operations"): then
 *   the newer state (higher version) stands, and nobody got in twice.
 * - Histories (scan_log, admission_events) are unions; occupancy is counted
 *   again from the merged states and history, never added up.
 * - What can only happen, never un-happen, wins from either side: revocations
 *   (ticket, setup token, scanner key), token use, key retirement; the
 *   earliest time is kept.
 * - Exactly one active signing key: this issuer's, unless the file's side
 *   retired it (a rotation there) or the data dir is created from the file;
 *   then the file's. Any other key that was still signing is retired now.
 * - Rows that may not differ (a ticket's code, a key's public half…) and do
 *   differ stop the import (IMPORT_CONFLICT): such a file is not of this issuer.
 *
 * The file has passed checkExportFile (read.ts) before anything is
 * written; this module places the data dir's files (import-files.ts), and
 * the merge (merge.ts; merge-rows.ts, merge-checkins.ts, merge-logs.ts) then
 * reads it again (FileRows), table by table in the file's order, holding one batch of rows (MERGE_BATCH) and compact sets of
 * fingerprints (compact-set.ts), never the file: memory stays flat whatever
 * its size.
 *
 * Everything happens in one write job (one transaction) of the database port,
 * on SQLite or PostgreSQL alike, so a failed import changes nothing in the
 * database (files it made are removed again), and a running `serve` sees the
 * result on its next request. On PostgreSQL the job runs again when a
 * concurrent writer won (a `serve` checking in a ticket the file also checks
 * in): each run starts from scratch, reads the file again from its start and
 * decides from what it reads.
 *
 * A new data dir takes its database from `--database URL` or
 * TICKET_ISSUER_DATABASE_URL, as `init` does: a PostgreSQL database is
 * migrated first and must not hold an issuer yet.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { isInitialised, parseDatabaseUrl, requireIssuerDataDir, resolveDataDir, withLocation, type DataDir } from '../data-dir.js';
import { findIssuerInfo } from '../store/issuer-info.js';
import { describeDatabase, openIssuerDatabase } from '../store/open.js';
import { refuseDatabaseWithIssuer } from '../admin/init.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { TRANSFER_TABLES, transferStore, type TransferTable } from './store.js';
import { AdminError } from '../error-catalogue.js';
import { notInitialised } from '../admin/issuer-context.js';
import type { StartProgress } from '../admin/progress.js';
import { FileRows, type CheckedFile } from './read.js';
import { placePrivateKeys, placeTlsCertificate, prepareNewDataDir, Undo } from './import-files.js';
import { Merge } from './merge.js';
import { conflict, type KindCounts } from './merge-rows.js';

export type { KindCounts };

export type ImportKind = TransferTable | 'tls_certificate';
export const IMPORT_KINDS: readonly ImportKind[] = [...TRANSFER_TABLES, 'tls_certificate'];

export interface ImportResult {
  issuer: string;
  name: string;
  data: string;
  file: string;
  /** True when the data dir did not exist and was made from the file. */
  created: boolean;
  scope: { eid: string | null };
  active_kid: string;
  /** Keys that were still signing somewhere and that this import retired (exactly one key stays active). */
  retired_kids: string[];
  counts: Record<ImportKind, KindCounts>;
  /** Tickets checked in on both instances, newly found (the same as counts.checkins.conflicts). */
  double_admissions: number;
  warnings: string[];
}

export interface ImportOptions {
  /**
   * Where a NEW data dir's tables go, as `init --database` takes it: postgres://USER@HOST:PORT/DB or
   * sqlite:///absolute/path/issuer.db (recorded in the dir's database.json). Refused for an existing data dir.
   */
  database?: string;
}

/** Merges a file that passed checkExportFile (read.ts), reading its rows again as it goes. */
export async function importIssuer(
  dataOption: string | undefined,
  file: CheckedFile,
  now: Date,
  startProgress: StartProgress,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const resolved = resolveDataDir(dataOption);
  // Imports bring signing keys: never into a serving node's dir (docs/issuer.md "Serving nodes").
  requireIssuerDataDir(resolved);
  if (options.database !== undefined && isInitialised(resolved)) {
    throw new AdminError(
      'INVALID_ARGUMENT',
      `--database is for a new data dir: ${resolved.root} already holds an issuer (${describeDatabase(resolved)}); import into it without --database`,
    );
  }
  const dataDir =
    options.database === undefined ? resolved : withLocation(resolved, parseDatabaseUrl(options.database, '--database'), 'record');
  const created = !isInitialised(dataDir);
  if (options.database !== undefined && !created) {
    throw new AdminError('ALREADY_INITIALISED', `${describeDatabase(dataDir)} already holds an issuer; refusing to overwrite it`);
  }
  // Checked before anything is written, so a refused import leaves no data dir behind (as init does).
  if (created && dataDir.postgres !== undefined) await refuseDatabaseWithIssuer(dataDir);
  const undo = new Undo();
  let database: SqlDatabase | undefined;
  try {
    if (created) prepareNewDataDir(dataDir, undo);
    const opened = await openIssuerDatabase(dataDir);
    database = opened.database;
    if (!created) await checkSameIssuer(database.read, opened.schemaVersion, dataDir, file);
    const warnings: string[] = [];
    const tls = placeTlsCertificate(dataDir, file.header, undo, warnings);
    placePrivateKeys(dataDir, file.signingKeys, undo);

    const total = TRANSFER_TABLES.reduce((sum, table) => sum + file.counts[table], 0);
    // A new Merge and a new read of the file per run of the job: on PostgreSQL a run that lost to a concurrent
    // writer is discarded whole, and the next one reads the file from its start.
    const merged = await database.write(async (tx) => {
      const progress = startProgress(total, 'Importing');
      const rows = new FileRows(file);
      try {
        return await new Merge(transferStore(tx), file, rows, now, progress).run(created);
      } finally {
        rows.close();
        progress.stop();
      }
    });
    warnings.push(...merged.warnings);
    return {
      issuer: merged.issuer,
      name: merged.name,
      data: dataDir.root,
      file: path.resolve(file.source),
      created,
      scope: merged.scope,
      active_kid: merged.active_kid,
      retired_kids: merged.retired_kids,
      counts: { ...merged.counts, tls_certificate: tls },
      double_admissions: merged.counts.checkins.conflicts,
      warnings,
    };
  } catch (error) {
    await database?.close().catch(() => undefined);
    database = undefined;
    undo.run();
    throw asImportError(error);
  } finally {
    await database?.close();
  }
}

/** Tickets are bound to `iss`: only an export of this very issuer may be merged. */
async function checkSameIssuer(db: Sql, schemaVersion: number, dataDir: DataDir, file: CheckedFile): Promise<void> {
  const info = schemaVersion === 0 ? undefined : await findIssuerInfo(db);
  if (!info) throw notInitialised(dataDir);
  const source = file.source;
  if (info.base_url !== file.header.issuer.base_url) {
    throw new AdminError(
      'IMPORT_ISSUER_MISMATCH',
      `${source} is an export of ${file.header.issuer.base_url}, but ${dataDir.root} is the issuer ${info.base_url}; tickets are bound to their issuer, so only an export of ${info.base_url} can be merged here (import into a new --data DIR to make a copy)`,
    );
  }
  const known = await db.all<{ kid: string; public_key: string }>('SELECT kid, public_key FROM signing_keys');
  const shared = file.signingKeys.some((key) => known.some((k) => k.kid === key.kid && k.public_key === key.public_key));
  if (!shared) {
    throw new AdminError(
      'IMPORT_ISSUER_MISMATCH',
      `${source} shares no signing key with ${dataDir.root}: it comes from another issuer that uses the same base URL ${info.base_url}, not from a copy of this one`,
    );
  }
}

/** A constraint the file breaks (SQLite's SQLITE_CONSTRAINT_*, PostgreSQL's class 23) is a file that contradicts this issuer. */
function asImportError(error: unknown): unknown {
  if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT')) {
    return conflict(`the file contradicts this issuer's data (${error.message})`);
  }
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (!(error instanceof AdminError) && typeof code === 'string' && /^23[0-9A-Z]{3}$/.test(code)) {
    return conflict(`the file contradicts this issuer's data (${(error as Error).message})`);
  }
  return error;
}
