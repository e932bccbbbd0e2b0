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
 * written; the merge then reads it again (FileRows), table by table in the
 * file's order, holding one batch of rows (MERGE_BATCH) and compact sets of
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
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  createDataDir,
  DATABASE_RECORD,
  isInitialised,
  parseDatabaseUrl,
  requireIssuerDataDir,
  resolveDataDir,
  withLocation,
  writePrivateFile,
  type DataDir,
} from '../data-dir.js';
import { keyFile, rawPublicKey, savePrivateKey } from '../signing.js';
import { findIssuerInfo } from '../store/issuer-info.js';
import { describeDatabase, openIssuerDatabase } from '../store/open.js';
import { refuseDatabaseWithIssuer } from '../admin/init.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { immutableColumns } from '../store/columns.js';
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';
import {
  LOG_IDENTITY_COLUMNS,
  policyKey,
  TRANSFER_COLUMNS,
  TRANSFER_KEYS,
  TRANSFER_TABLES,
  transferStore,
  type KeyedTable,
  type LogTable,
  type Row,
  type TransferStore,
  type TransferTable,
} from './store.js';
import { kidFromPublicKey } from '../../protocol/kid.js';
import { AdminError } from '../error-catalogue.js';
import { notInitialised } from '../admin/issuer-context.js';
import type { Progress, StartProgress } from '../admin/progress.js';
import { FingerprintSet } from './compact-set.js';
import { PRIVATE_KEY_FIELD, type ExportHeader, type FileRow } from './file.js';
import { entryKey, FileRows, type CheckedFile } from './read.js';
import { dobMerge, dobWarning, mergeTypeIdChecks } from './id-checks.js';
import { mergeTicketParty, mergeTypeHandouts, partyWarning } from './handouts.js';
import { isLater } from './type-settings.js';
import { mergeTicketNote, mergeTypeNotes, noteWarning } from './attention-notes.js';

export interface KindCounts {
  added: number;
  updated: number;
  unchanged: number;
  conflicts: number;
}

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

/** Files and folders this import made, removed again if it fails (the database rolls back by itself). */
class Undo {
  private readonly paths: string[] = [];

  made(file: string): void {
    this.paths.push(file);
  }

  run(): void {
    for (const file of this.paths.reverse()) {
      try {
        fs.rmSync(file, { force: true, recursive: true });
      } catch {
        // Best effort: what remains is an unreferenced file, never a half-merged issuer.
      }
    }
  }
}

/** The venue laptop: a new data dir, removed entirely if the import fails. */
function prepareNewDataDir(dataDir: DataDir, undo: Undo): void {
  if (!fs.existsSync(dataDir.root)) undo.made(dataDir.root);
  for (const dir of [dataDir.keysDir, dataDir.tlsDir]) if (!fs.existsSync(dir)) undo.made(dir);
  const record = path.join(dataDir.root, DATABASE_RECORD);
  if (!fs.existsSync(record)) undo.made(record);
  // PostgreSQL: the transaction rolls back by itself (the migrated, empty schema stays, as after a failed init).
  if (dataDir.postgres === undefined) for (const suffix of ['', '-wal', '-shm', '-journal']) undo.made(`${dataDir.database}${suffix}`);
  createDataDir(dataDir);
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

/** The self-signed certificate kiosks pinned: taken when this data dir has none; a different one here is kept (and said). */
function placeTlsCertificate(dataDir: DataDir, file: ExportHeader, undo: Undo, warnings: string[]): KindCounts {
  const counts = emptyCounts();
  if (file.tls === null) return counts;
  const certFile = path.join(dataDir.tlsDir, 'cert.pem');
  const keyPath = path.join(dataDir.tlsDir, 'key.pem');
  const haveCert = fs.existsSync(certFile);
  if (!haveCert && !fs.existsSync(keyPath)) {
    fs.mkdirSync(dataDir.tlsDir, { recursive: true, mode: 0o700 });
    undo.made(keyPath);
    writePrivateFile(keyPath, file.tls.key_pem);
    undo.made(certFile);
    fs.writeFileSync(certFile, file.tls.cert_pem, { mode: 0o644, flag: 'wx' });
    counts.added = 1;
  } else if (haveCert && fingerprint(fs.readFileSync(certFile, 'utf8')) === fingerprint(file.tls.cert_pem)) {
    counts.unchanged = 1;
  } else {
    counts.conflicts = 1;
    warnings.push(
      `the file's TLS certificate (${fingerprint(file.tls.cert_pem)}) differs from this data dir's; this one is kept, so kiosks that pinned the file's certificate must be enrolled again with a setup code from this issuer`,
    );
  }
  return counts;
}

const fingerprint = (pem: string): string => new crypto.X509Certificate(pem).fingerprint256;

/** Private keys this data dir lacks go to keys/ (0600) before the database names them, as `init` and `key rotate` do. */
function placePrivateKeys(dataDir: DataDir, signingKeys: readonly FileRow[], undo: Undo): void {
  for (const row of signingKeys) {
    const pem = row[PRIVATE_KEY_FIELD];
    const kid = row.kid as string;
    if (typeof pem !== 'string' || fs.existsSync(keyFile(dataDir.keysDir, kid))) continue;
    const privateKey = crypto.createPrivateKey(pem);
    const publicKey = rawPublicKey(crypto.createPublicKey(privateKey));
    undo.made(keyFile(dataDir.keysDir, kid));
    savePrivateKey(dataDir.keysDir, { kid: kidFromPublicKey(publicKey), publicKey, privateKey });
  }
}

const emptyCounts = (): KindCounts => ({ added: 0, updated: 0, unchanged: 0, conflicts: 0 });

/** Earlier of two optional times; `a` (this issuer's) on a tie. */
function earliest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) < Date.parse(a) ? b : a;
}

const sameColumns = (a: Row, b: Row, columns: readonly string[]): boolean => columns.every((c) => a[c] === b[c]);

function requireSame(dest: Row, row: Row, columns: readonly string[], what: string): void {
  if (!sameColumns(dest, row, columns)) throw conflict(`${what} is different in the file`);
}

/** Columns that never change once written (store/columns.ts): a difference means the file is not of this issuer (or is corrupt). */
const IMMUTABLE = {
  tickets: immutableColumns('tickets'),
  enrollment_tokens: immutableColumns('enrollment_tokens'),
  api_keys: immutableColumns('api_keys'),
  staff_badges: immutableColumns('staff_badges'),
  handouts: immutableColumns('handouts'),
};

const PROGRESS_STEP = 1000;
/** File rows looked up together (one query) and added together (one statement per batch). */
const MERGE_BATCH = 500;

class Merge {
  // Everything a run learns starts empty: on PostgreSQL a run that lost to a concurrent writer is thrown away
  // with its Merge, and the next run decides only from what it reads through its own transaction.
  private readonly counts = Object.fromEntries(TRANSFER_TABLES.map((table) => [table, emptyCounts()])) as Record<TransferTable, KindCounts>;
  private readonly nowIso: string;
  private readonly conflicts: Row[] = [];
  private readonly warnings: string[] = [];
  /** The file's events, for counting their occupancy again. */
  private readonly eids: string[] = [];
  private done = 0;

  constructor(
    private readonly store: TransferStore,
    private readonly file: CheckedFile,
    private readonly rows: FileRows,
    now: Date,
    private readonly progress: Progress,
  ) {
    this.nowIso = now.toISOString();
  }

  async run(created: boolean) {
    const { issuer, scope } = this.file.header;
    const existing = await this.store.issuerInfo();
    if (created) {
      if (existing) {
        throw new AdminError(
          'ALREADY_INITIALISED',
          `the new data dir's database already holds the issuer "${existing.name}" (${existing.base_url}); refusing to overwrite it`,
        );
      }
      await this.store.insertIssuerInfo(issuer);
    } else if (existing!.name !== issuer.name) {
      this.warnings.push(`the file names the issuer "${issuer.name}"; this data dir's name "${existing!.name}" is kept`);
    }
    // In the file's order (TRANSFER_TABLES), as its rows are read again.
    const keys = await this.mergeSigningKeys();
    await this.mergeEvents();
    await this.mergeTickets();
    await this.mergeCheckins();
    await this.mergeScanLog();
    await this.mergeTokens();
    await this.mergeApiKeys();
    await this.mergeIdempotency();
    await this.mergeLog('admission_events');
    await this.mergeOfflinePolicies();
    await this.mergeHeartbeats();
    await this.mergeLog('kiosk_log_heads');
    await this.mergeLanKeys();
    await this.mergeCheckInRules();
    await this.mergeStaffBadges();
    await mergeTypeIdChecks(this.store, this.fileRows('ticket_type_id_checks'), this.counts.ticket_type_id_checks);
    await mergeTypeHandouts(this.store, this.fileRows('ticket_type_handouts'), this.counts.ticket_type_handouts);
    await this.mergeRows('handouts', async (dest, row, hid) => (requireSame(dest, row, IMMUTABLE.handouts, `handout ${hid}`), 'unchanged'));
    await mergeTypeNotes(this.store, this.fileRows('ticket_type_notes'), this.counts.ticket_type_notes);
    this.rows.finish();
    // Each side counted its own doors: the merged counters are counted again from the merged rows.
    await this.store.recomputeOccupancy(this.eids);
    this.progress.advance(this.done % PROGRESS_STEP);
    const info = (await this.store.issuerInfo())!;
    return {
      issuer: info.base_url,
      name: info.name,
      scope,
      active_kid: keys.active,
      retired_kids: keys.retired,
      counts: this.counts,
      warnings: this.warnings,
    };
  }

  private tick(): void {
    if (++this.done % PROGRESS_STEP === 0) this.progress.advance(PROGRESS_STEP);
  }

  /** The file's rows of `table` as they are read again (FileRows), counted for the progress bar. */
  private *fileRows(table: TransferTable): Generator<Row> {
    for (const row of this.rows.rows(table) as Generator<Row>) {
      this.tick();
      if (table === 'events') this.eids.push(row.eid as string);
      yield row;
    }
  }

  /** Union of keys; retirement wins from either side; then exactly one active key (see the module comment). */
  private async mergeSigningKeys(): Promise<{ active: string; retired: string[] }> {
    const before = new Map((await this.store.allKeys()).map((k) => [k.kid, k]));
    const destActive = await this.store.activeKid();
    // valid_until per kid after the merge, before choosing the active key: null means "still signing" on every side that has it.
    const window = new Map<string, string | null>([...before].map(([kid, k]) => [kid, k.valid_until]));
    const found = await this.store.findMany(
      'signing_keys',
      this.file.signingKeys.map((key) => key.kid as string),
    );
    const added: Row[] = [];
    let fileActive = '';
    for (const key of this.file.signingKeys) {
      this.tick();
      const kid = key.kid as string;
      const validUntil = key.valid_until as string | null;
      if (key.active === true) fileActive = kid;
      const dest = found.get(kid);
      if (dest === undefined) {
        added.push({
          kid,
          public_key: key.public_key as string,
          valid_from: key.valid_from as string,
          valid_until: validUntil,
          active: 0,
        });
      } else if (dest.public_key !== key.public_key) throw conflict(`signing key ${kid} has another public key in the file`);
      window.set(kid, earliest(window.get(kid) ?? null, validUntil));
    }
    await this.store.insertMany('signing_keys', added);
    let active: string;
    if (destActive !== null && window.get(destActive) === null) active = destActive;
    else if (window.get(fileActive) === null) active = fileActive;
    else {
      throw conflict(
        `each side has retired the other's active signing key (${destActive} here, ${fileActive} in the file); run "ticket-issuer key rotate" here, then import again`,
      );
    }
    // Every other key that still signs somewhere stops now, so tickets it signed keep verifying (their iat is earlier).
    const retired = [...window].filter(([kid, validUntil]) => kid !== active && validUntil === null).map(([kid]) => kid);
    for (const kid of retired) window.set(kid, this.nowIso);
    await this.store.deactivateAllKeys();
    for (const [kid, validUntil] of window) if (kid !== active) await this.store.setKeyState(kid, validUntil, false);
    await this.store.setKeyState(active, null, true);

    const counts = this.counts.signing_keys;
    for (const key of this.file.signingKeys) {
      const kid = key.kid as string;
      const old = before.get(kid);
      if (old === undefined) counts.added++;
      else if (old.valid_until === (kid === active ? null : window.get(kid)) && (old.active === 1) === (kid === active)) counts.unchanged++;
      else counts.updated++;
    }
    return { active, retired };
  }

  /**
   * The common walk: each row of the file's `table` is added when this side
   * lacks it; otherwise `existing` merges it and says how to count it (null:
   * counted later, by the audit-log step). Rows are looked up and added in
   * batches, in the file's order (each key is in the file once: file.ts).
   */
  private async mergeRows(
    table: Exclude<KeyedTable, 'signing_keys'>,
    existing: (dest: Row, row: Row, id: string) => Promise<keyof KindCounts | null>,
  ): Promise<void> {
    const counts = this.counts[table];
    const added = new PendingInserts(this.store, table);
    for (const batch of batches(this.fileRows(table), MERGE_BATCH)) {
      const found = await this.store.findMany(
        table,
        batch.map((row) => row[TRANSFER_KEYS[table]] as string),
      );
      for (const row of batch) {
        const id = row[TRANSFER_KEYS[table]] as string;
        const dest = found.get(id);
        if (dest === undefined) {
          await added.add(row);
          counts.added++;
        } else {
          const outcome = await existing(dest, row, id);
          if (outcome !== null) counts[outcome]++;
        }
      }
    }
    await added.flush();
  }

  private async mergeEvents(): Promise<void> {
    const differing: string[] = [];
    await this.mergeRows('events', async (dest, event, eid) => {
      if (sameColumns(dest, event, TRANSFER_COLUMNS.events)) return 'unchanged';
      differing.push(eid);
      return 'conflicts';
    });
    if (differing.length > 0)
      this.warnings.push(`${differing.length} event(s) differ in the file (${listed(differing)}); this data dir's details are kept`);
  }

  /**
   * Revoked on either side stays revoked, from the earlier time, with that time's reason; a date of birth:
   * id-checks.ts; a party size and own items: handouts.ts; an attention flag and note: attention-notes.ts.
   */
  private async mergeTickets(): Promise<void> {
    const otherDob: string[] = [];
    const otherParty: string[] = [];
    const otherNote: string[] = [];
    await this.mergeRows('tickets', async (dest, ticket, tid) => {
      requireSame(dest, ticket, IMMUTABLE.tickets, `ticket ${tid}`);
      const dob = dobMerge(dest, ticket);
      if (dob === 'take') await this.store.setDob(tid, ticket.dob as string);
      if (dob === 'differs') otherDob.push(tid);
      const noteTaken = await mergeTicketNote(this.store, dest, ticket, otherNote);
      const taken = (await mergeTicketParty(this.store, dest, ticket, otherParty)) || dob === 'take' || noteTaken;
      const revokedAt = earliest(dest.revoked_at as string | null, ticket.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return taken ? 'updated' : 'unchanged';
      await this.store.setRevocation(tid, revokedAt, ticket.revoke_reason as string | null);
      return 'updated';
    });
    for (const warning of [dobWarning(otherDob), partyWarning(otherParty), noteWarning(otherNote)])
      if (warning !== null) this.warnings.push(warning);
  }

  /**
   * One check-in per ticket. A row is the ticket's current admission (docs/protocol.md "Door operations"),
   * so two rows of one ticket are either the same admission at two moments, and the newer state stands
   * (sameAdmission), or two admissions: the earliest stands, the other is a double admission. The same
   * scan sent to both instances (same idempotency key) is one admission, not a conflict.
   */
  private async mergeCheckins(): Promise<void> {
    await this.mergeRows('checkins', async (dest, incoming, tid) => {
      const newer = await this.sameAdmission(dest, incoming);
      if (newer === 'dest') return 'unchanged';
      if (newer === 'incoming') {
        // Newer on a version tie (a later state_at): still a version above this side's, for a serve writing meanwhile.
        const version =
          (incoming.version as number) > (dest.version as number) ? (incoming.version as number) : nextVersion(dest, incoming);
        await this.store.replaceCheckin({ ...incoming, version });
        return 'updated';
      }
      if (supersedesAnnulled(incoming, dest)) {
        // This side's check-in was undone before the file's entry: the file's admission is the ticket's only one.
        await this.store.replaceCheckin({ ...incoming, version: nextVersion(dest, incoming) });
        return 'updated';
      }
      if (supersedesAnnulled(dest, incoming)) return 'unchanged';
      // The admission that stands gets a version above both, on whichever side keeps it: a serve writing from
      // either row meanwhile (PostgreSQL) finds it changed, and both sides end with the same row.
      if (!isEarlier(incoming, dest)) {
        await this.store.replaceCheckin({ ...dest, version: nextVersion(dest, incoming) });
        this.conflicts.push(await this.conflictRow(tid, incoming, dest));
        return null;
      }
      await this.store.replaceCheckin({ ...incoming, version: nextVersion(dest, incoming) });
      this.conflicts.push(await this.conflictRow(tid, dest, incoming));
      return 'updated';
    });
  }

  /**
   * Whether two rows of a ticket are one admission, and which is newer: 'dest' or 'incoming', else null
   * (two admissions). One admission when both have the same current entry (idempotency key), or when one
   * side's history holds the other's current entry (a re-entry or a change made after the copy was taken).
   * The newer is the one with the higher version (changes made), then the later state_at; this side on a tie.
   */
  private async sameAdmission(dest: Row, incoming: Row): Promise<'dest' | 'incoming' | null> {
    const newer = isNewerState(incoming, dest) ? 'incoming' : 'dest';
    if (dest.idempotency_key === incoming.idempotency_key) return newer;
    // The file has seen this side's entry and went on from it (its history's entries: read.ts).
    if (newer === 'incoming' && this.file.entryKeys.has(entryKey(dest.tid, dest.idempotency_key))) return 'incoming';
    // This side has seen the file's entry and went on from it.
    if (newer === 'dest' && (await this.store.entryKeysOf(incoming.tid as string)).has(incoming.idempotency_key as string)) return 'dest';
    return null;
  }

  /** The audit row of a double admission: the later check-in (`dropped`), and which one stands. */
  private async conflictRow(tid: string, dropped: Row, kept: Row): Promise<Row> {
    const ticket = (await this.store.find('tickets', tid))!;
    return {
      at: this.nowIso,
      scanned_at: dropped.checked_in_at!,
      tid,
      eid: ticket.eid!,
      scanner_id: dropped.scanner_id!,
      api_key_id: dropped.api_key_id!,
      gate_id: dropped.gate_id!,
      idempotency_key: dropped.idempotency_key!,
      outcome: IMPORT_CONFLICT_OUTCOME,
      details: JSON.stringify({
        check: 'import',
        reason: 'checked in on two instances of the issuer; the earlier check-in stands',
        recorded_at: dropped.recorded_at,
        kept: {
          checked_in_at: kept.checked_in_at,
          scanner_id: kept.scanner_id,
          gate_id: kept.gate_id,
          api_key_id: kept.api_key_id,
          idempotency_key: kept.idempotency_key,
        },
      }),
    };
  }

  /** Setup tokens: used or revoked on either side stays so (earliest time); failed attempts, the higher count. */
  private async mergeTokens(): Promise<void> {
    await this.mergeRows('enrollment_tokens', async (dest, token, id) => {
      requireSame(dest, token, IMMUTABLE.enrollment_tokens, `setup token ${id}`);
      const usedAt = earliest(dest.used_at as string | null, token.used_at as string | null);
      const revokedAt = earliest(dest.revoked_at as string | null, token.revoked_at as string | null);
      const failed = Math.max(dest.failed_attempts as number, token.failed_attempts as number);
      if (usedAt === dest.used_at && revokedAt === dest.revoked_at && failed === dest.failed_attempts) return 'unchanged';
      await this.store.setTokenState(id, usedAt, revokedAt, failed);
      return 'updated';
    });
  }

  /** Scanner keys (hashes only): enrolled on either side keeps working on both; revoked on either side stays revoked. */
  private async mergeApiKeys(): Promise<void> {
    await this.mergeRows('api_keys', async (dest, key, id) => {
      requireSame(dest, key, IMMUTABLE.api_keys, `scanner key ${id}`);
      const revokedAt = earliest(dest.revoked_at as string | null, key.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return 'unchanged';
      await this.store.setApiKeyRevocation(id, revokedAt);
      return 'updated';
    });
  }

  /**
   * Stored first answers, so a kiosk that retries a queued scan at the other
   * instance gets the answer it would have got here. A key answered
   * differently on each side keeps this side's answer.
   */
  private async mergeIdempotency(): Promise<void> {
    await this.mergeRows('idempotency', async (dest, answer) =>
      sameColumns(dest, answer, ['request_hash', 'http_status', 'response_body']) ? 'unchanged' : 'conflicts',
    );
    const conflicts = this.counts.idempotency.conflicts;
    if (conflicts > 0)
      this.warnings.push(
        `${conflicts} idempotency key(s) were answered differently by the two instances; this data dir's answers are kept`,
      );
  }

  /**
   * The audit log has no shared row id, so a row is "already here" when every
   * column is equal; a double admission is recorded once per (ticket, scan)
   * whichever instance found it. New double admissions are added last.
   */
  private async mergeScanLog(): Promise<void> {
    const counts = this.counts.scan_log;
    // Fingerprints, not rows (compact-set.ts): the logs of both sides may be long.
    const seen = new FingerprintSet();
    const recordedConflicts = new FingerprintSet();
    const remember = (row: Row): void => {
      seen.add(rowIdentity(row, 'scan_log'));
      if (row.outcome === IMPORT_CONFLICT_OUTCOME) recordedConflicts.add(conflictKey(row));
    };
    for await (const row of this.store.logRows('scan_log')) remember(row);
    // Added in the file's order, then the new double admissions: the order the rows had before the port.
    const added = new PendingInserts(this.store, 'scan_log');
    for (const row of this.fileRows('scan_log')) {
      const duplicate =
        seen.has(rowIdentity(row, 'scan_log')) || (row.outcome === IMPORT_CONFLICT_OUTCOME && recordedConflicts.has(conflictKey(row)));
      if (duplicate) counts.unchanged++;
      else {
        await added.add(row);
        remember(row);
        counts.added++;
      }
    }
    for (const row of this.conflicts) {
      // Found by an earlier import (here or on the other side): the same double admission, already in the log.
      if (recordedConflicts.has(conflictKey(row))) this.counts.checkins.unchanged++;
      else {
        await added.add(row);
        remember(row);
        this.counts.checkins.conflicts++;
      }
    }
    await added.flush();
  }

  /**
   * An append-only log without rules of its own (the admission history, the kiosks' reported chain heads): the
   * union, in the file's order; a row is already here when every column is equal.
   */
  private async mergeLog(table: 'admission_events' | 'kiosk_log_heads'): Promise<void> {
    const counts = this.counts[table];
    const seen = new FingerprintSet();
    for await (const row of this.store.logRows(table)) seen.add(rowIdentity(row, table));
    const added = new PendingInserts(this.store, table);
    for (const row of this.fileRows(table)) {
      if (!seen.add(rowIdentity(row, table))) counts.unchanged++;
      else {
        await added.add(row);
        counts.added++;
      }
    }
    await added.flush();
  }

  /** Offline exposure policies per event and ticket type: the one set last (updated_at) stands, this side's on a tie. */
  private async mergeOfflinePolicies(): Promise<void> {
    const counts = this.counts.offline_policies;
    const here = await this.store.offlinePolicies();
    const added = new PendingInserts(this.store, 'offline_policies');
    for (const row of this.fileRows('offline_policies')) {
      const dest = here.get(policyKey(row));
      if (dest === undefined) {
        await added.add(row);
        counts.added++;
      } else if (sameColumns(dest, row, TRANSFER_COLUMNS.offline_policies) || !isLater(row.updated_at, dest.updated_at)) {
        counts.unchanged++;
      } else {
        await this.store.replaceOfflinePolicy(row);
        counts.updated++;
      }
    }
    await added.flush();
  }

  /** What each kiosk last said of itself: the newest report stands. */
  /**
   * An event's LAN key: the first one made stands (docs/kiosk.md "Kiosks on one LAN"). Two different keys mean
   * both copies enrolled kiosks for the event before they met: those of the other copy cannot warn these until
   * they are enrolled again, which the warning says.
   */
  private async mergeLanKeys(): Promise<void> {
    const differing: string[] = [];
    await this.mergeRows('event_lan_keys', async (dest, row, eid) => {
      if (dest.lan_key === row.lan_key) return 'unchanged';
      differing.push(eid);
      return 'conflicts';
    });
    if (differing.length > 0) {
      this.warnings.push(
        `${differing.length} event(s) have another LAN key in the file (${listed(differing)}); this data dir's key is kept: kiosks enrolled on the other copy warn each other only after they are enrolled again here`,
      );
    }
  }

  /** Staff badges (docs/issuer.md "Staff roles and badges"): revoked on either side stays revoked, from the earlier time, with its reason. */
  private async mergeStaffBadges(): Promise<void> {
    await this.mergeRows('staff_badges', async (dest, badge, sid) => {
      requireSame(dest, badge, IMMUTABLE.staff_badges, `staff badge ${sid}`);
      const revokedAt = earliest(dest.revoked_at as string | null, badge.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return 'unchanged';
      await this.store.setBadgeRevocation(sid, revokedAt, badge.revoked_reason as string | null);
      return 'updated';
    });
  }

  /** An event's check-in rules: the later set stands (the file's when it was set after this copy's). */
  private async mergeCheckInRules(): Promise<void> {
    await this.mergeRows('check_in_rules', async (dest, row) => {
      if (dest.rules === row.rules) return 'unchanged';
      if (!isLater(row.updated_at, dest.updated_at)) return 'unchanged';
      await this.store.replaceCheckInRules(row);
      return 'updated';
    });
  }

  private async mergeHeartbeats(): Promise<void> {
    await this.mergeRows('scanner_heartbeats', async (dest, row) => {
      if (!isLater(row.reported_at, dest.reported_at)) return 'unchanged';
      await this.store.replaceHeartbeat(row);
      return 'updated';
    });
  }
}

/** The newer state of one admission: more changes made, then the later change; false on a tie. */
function isNewerState(a: Row, b: Row): boolean {
  if (a.version !== b.version) return (a.version as number) > (b.version as number);
  return isLater(a.state_at, b.state_at);
}

/** `later` entered after `annulled` was undone: the undone check-in admitted nobody, so `later` is the only admission. */
function supersedesAnnulled(later: Row, annulled: Row): boolean {
  return annulled.state === 'annulled' && later.state !== 'annulled' && !isLater(annulled.state_at, later.first_checked_in_at);
}

const nextVersion = (a: Row, b: Row): number => Math.max(a.version as number, b.version as number) + 1;

function isEarlier(a: Row, b: Row): boolean {
  const [ta, tb] = [Date.parse(a.checked_in_at as string), Date.parse(b.checked_in_at as string)];
  if (ta !== tb) return ta < tb;
  const [ra, rb] = [Date.parse(a.recorded_at as string), Date.parse(b.recorded_at as string)];
  if (ra !== rb) return ra < rb;
  return (a.idempotency_key as string) < (b.idempotency_key as string);
}

/** What makes two rows of a log the same row (LOG_IDENTITY_COLUMNS), as one string. */
const rowIdentity = (row: Row, table: LogTable): string => JSON.stringify(LOG_IDENTITY_COLUMNS[table].map((c) => row[c] ?? null));

/**
 * Rows to add to one table, inserted MERGE_BATCH at a time as the file is read: flat memory, and statements of
 * one size (each size of a multi-row INSERT is a statement of its own, prepared and kept by the connection).
 */
class PendingInserts {
  private rows: Row[] = [];

  constructor(
    private readonly store: TransferStore,
    private readonly table: TransferTable,
  ) {}

  async add(row: Row): Promise<void> {
    this.rows.push(row);
    if (this.rows.length >= MERGE_BATCH) await this.flush();
  }

  /** Inserts what is pending (in the file's order); the last call of a table inserts the rest. */
  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    await this.store.insertMany(this.table, rows);
  }
}

/** Groups of up to `size` items, in their order. */
function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

const conflictKey = (row: Row): string => `${String(row.tid)}\n${String(row.idempotency_key)}`;

const listed = (ids: string[]): string => (ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}…`);

const conflict = (why: string): AdminError =>
  new AdminError('IMPORT_CONFLICT', `${why}; nothing was imported (is the file an export of this issuer, and undamaged?)`);

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
