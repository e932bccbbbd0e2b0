/**
 * The kiosk's durable local state: one SQLite file (better-sqlite3).
 *
 * - scans: every scan that goes to the issuer, committed BEFORE its verdict is
 *   shown, with its idempotency key, so a crash or power cut never loses an
 *   admission nor changes the key a retry is sent with (spec "Offline behaviour").
 * - settings: the non-secret enrollment state, the device identity, the
 *   staff PIN's slow hash and lockout (staff-access.ts), the language.
 *   The API key is NOT here (spec "Authentication" 8): see api-key-store.ts.
 * - discovery: the last good discovery document per issuer, so a kiosk that
 *   restarts offline still verifies signatures.
 * - read_log: reads that made no scan of their own (a scanner's repeat read
 *   of a code, a calibration), for IT and support.
 *
 * WAL + synchronous=FULL: a committed transaction survives power loss, not
 * only a process crash.
 */
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type {
  DiscoveryDocument,
  DoorCheckInRequest,
  GateDirection,
  HeartbeatResponse,
  IsoDateTime,
  ScanAction,
  Verdict,
} from '../../../protocol/index.js';
import {
  ChainVerifier,
  chainFields,
  chainHash,
  describeChainBreak,
  GENESIS_HASH,
  KIOSK_LOG_CHAIN_FIELDS,
  type ChainBreak,
  type LogHead,
} from '../../../protocol/audit-chain.js';
import type { LogCheckResult } from '../../../renderer/kiosk-bridge-types.js';
import type { CalibrationResult } from '../decide/calibration.js';
import type { ScanOrigin } from '../decide/repeat-reads.js';

/** protocol/audit-chain.ts's SHA-256, by node:crypto: the same hex, about ten times faster than the pure one. */
const nodeSha256Hex = (message: Uint8Array): string => createHash('sha256').update(message).digest('hex');

/** Ordered, append-only: migration N brings the file from user_version N to N+1. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE discovery (
    iss TEXT PRIMARY KEY,
    document TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
  );
  CREATE TABLE scans (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT NOT NULL UNIQUE,
    code TEXT NOT NULL,
    iss TEXT NOT NULL,
    tid TEXT NOT NULL,
    eid TEXT NOT NULL,
    gate_id TEXT,
    scanner_id TEXT NOT NULL,
    scanned_at TEXT NOT NULL,
    signature_status TEXT NOT NULL CHECK (signature_status IN ('valid', 'invalid')),
    queue_state TEXT NOT NULL CHECK (queue_state IN ('sending', 'pending', 'held', 'done', 'failed')),
    verdict TEXT,
    admitted_at TEXT,
    admitted_offline INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    result_status TEXT,
    result TEXT,
    answered_at TEXT
  );
  CREATE INDEX scans_queue ON scans (queue_state, next_attempt_at, seq);
  CREATE INDEX scans_tid ON scans (tid);
  `,
  // Door operations (docs/kiosk.md "Exit scans", "Annul at the door", "Offline exposure policy"): what
  // each scan is, why an annulment, the ticket's type (offline admissions are counted per type), and
  // whether its request says the kiosk already decided offline. Rows from before keep NULL `action`
  // and are sent as they were first sent (the issuer's idempotency compares the whole body).
  `
  ALTER TABLE scans ADD COLUMN action TEXT CHECK (action IN ('entry', 'exit', 'annul'));
  ALTER TABLE scans ADD COLUMN reason TEXT;
  ALTER TABLE scans ADD COLUMN ticket_type TEXT;
  ALTER TABLE scans ADD COLUMN sent_as_offline INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX scans_offline_admissions ON scans (admitted_at) WHERE admitted_offline = 1;
  `,
  // The revocation list (docs/kiosk.md "Revocation list"): the enrolled event's revoked tickets as the issuer's
  // revocation endpoint sent them, so a revoked ticket is refused offline. Only the tids: 100,000 of them take
  // about 3 MB. Its cursor and the time of the last good sync are in settings (\`revocations\`). The conflict
  // report lists offline admissions the issuer answered \`already_used\` or \`revoked\`.
  `
  CREATE TABLE revoked_tickets (tid TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE INDEX scans_conflicts ON scans (seq) WHERE admitted_offline = 1 AND result_status IN ('already_used', 'revoked');
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Where a scan stands with the issuer:
 * - sending: a request is in flight from the scan itself (reset to pending on restart);
 * - pending: waits in the offline queue;
 * - held: not sent automatically (strict offline refusal, or the scanner lost its key);
 *   a rescan of the same ticket resends it with the same body and key;
 * - done: the issuer answered; failed: the issuer rejected the request for good.
 */
export type QueueState = 'sending' | 'pending' | 'held' | 'done' | 'failed';

export interface Enrollment {
  iss: string;
  issuer_name: string;
  eid: string;
  event_name: string;
  event_date: IsoDateTime;
  gate_id: string | null;
  key_expires_at: IsoDateTime;
  /** Safe to log (spec "EnrollResponse"); the key itself lives in the secret store. */
  api_key_id: string;
  enrolled_at: IsoDateTime;
  /**
   * The setup code's pin of the issuer's self-signed TLS certificate (SHA-256,
   * uppercase hex pairs with ':'), or null for CA validation. Kept with the
   * enrollment so a restarted kiosk keeps using it; a re-enrollment replaces
   * both together. Part of the enrollment JSON in `settings`, so no schema
   * change: records written before it existed read as null.
   */
  tls_cert_sha256: string | null;
  /**
   * Which way this kiosk scans (setup code `direction`, changeable by staff).
   * Part of the enrollment JSON: records written before it existed read as entry.
   */
  direction: GateDirection;
}

/** The last heartbeat answer (docs/protocol.md "Scanner heartbeat") and when it came, kept across restarts. */
export interface StoredHeartbeat {
  response: HeartbeatResponse;
  received_at: IsoDateTime;
}

export interface ScannerIdentity {
  scanner_id: string;
  scanner_name: string;
}

export interface NewScan {
  code: string;
  iss: string;
  tid: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  scanned_at: IsoDateTime;
  signature_status: 'valid' | 'invalid';
  queue_state: 'sending' | 'pending' | 'held';
  /** Set when the verdict is already known at insert time (a refusal reported to the issuer). */
  verdict?: Verdict;
  /** What the scan is (sent as `action`); absent only for reports that are not door operations. */
  action?: ScanAction;
  /** Why a check-in is annulled (`annul` only). */
  reason?: string;
  ticket_type?: string | null;
  /** The request carries `admitted_offline: true`: the kiosk decided before any request went out. */
  sent_as_offline?: boolean;
}

export interface StoredScan {
  seq: number;
  idempotency_key: string;
  code: string;
  iss: string;
  tid: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  scanned_at: IsoDateTime;
  signature_status: 'valid' | 'invalid';
  queue_state: QueueState;
  verdict: Verdict | null;
  admitted_at: IsoDateTime | null;
  admitted_offline: boolean;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  result_status: string | null;
  result: unknown;
  answered_at: IsoDateTime | null;
  /** Null for scans stored before door operations: they are sent without `action`, as they first were. */
  action: ScanAction | null;
  reason: string | null;
  ticket_type: string | null;
  sent_as_offline: boolean;
}

/** The revocation list's place (docs/kiosk.md "Revocation list"): kept in settings beside the tids. */
export interface RevocationSync {
  iss: string;
  eid: string;
  /** The issuer's cursor to send as `since` next. */
  cursor: string;
  /** When the last sync reached the end of the issuer's list; null while none has. */
  synced_at: IsoDateTime | null;
}

/**
 * A ticket admitted offline here that the issuer later answered `already_used` (two people may be inside) or
 * `revoked` (revoked while this kiosk could not hear of it): the conflict report (docs/kiosk.md "Double admissions").
 */
export interface DoubleAdmission {
  tid: string;
  eid: string;
  /** What the issuer answered when the offline admission reached it. */
  conflict: 'already_used' | 'revoked';
  admitted_here_at: IsoDateTime;
  /** The issuer's time of the first check-in (elsewhere or earlier). */
  first_checked_in_at: IsoDateTime | null;
  holder_name?: string;
  idempotency_key: string;
}

interface ScanRow extends Omit<StoredScan, 'verdict' | 'admitted_offline' | 'result' | 'sent_as_offline'> {
  verdict: string | null;
  admitted_offline: number;
  sent_as_offline: number;
  result: string | null;
}

export type StoredCalibrations = Partial<Record<ScanOrigin, CalibrationResult>>;

export interface ReadLogEntry {
  seq: number;
  at: IsoDateTime;
  kind: 'repeat_read' | 'calibration';
  origin: ScanOrigin;
  tid: string | null;
  detail: string;
}

/** What the kiosk's audit log records: a scan committed, its verdict, the issuer's answer, a read that made no scan. */
export type AuditKind = 'scan' | 'verdict' | 'answer' | 'read';

interface AuditRow {
  seq: number;
  position: number;
  at: string;
  kind: AuditKind;
  idempotency_key: string | null;
  tid: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

/** The staff PIN as stored: scrypt's output and everything needed to check a PIN against it again. */
export interface StoredStaffPin {
  algorithm: 'scrypt';
  /** scrypt cost parameters, kept with the hash so a later change of the defaults still checks old PINs. */
  N: number;
  r: number;
  p: number;
  /** Random per kiosk (made when a PIN is set), base64. */
  salt: string;
  /** base64 of the derived key. */
  hash: string;
  set_at: IsoDateTime;
}

export interface StaffLockout {
  /** Wrong PINs since the last right one. */
  failed: number;
  /** Epoch ms before which no PIN is checked, or null. */
  locked_until: number | null;
}

export interface StoredLanguage {
  primary: string;
  secondary: string | null;
}

/** Rows read back from a damaged file (store-recovery.ts), as SQLite returned them. */
export interface SalvagedRows {
  settings: Array<[string, string]>;
  discovery: Record<string, unknown>[];
  scans: Record<string, unknown>[];
}

const SCAN_COLUMNS = [
  'idempotency_key',
  'code',
  'iss',
  'tid',
  'eid',
  'gate_id',
  'scanner_id',
  'scanned_at',
  'signature_status',
  'queue_state',
  'verdict',
  'admitted_at',
  'admitted_offline',
  'attempts',
  'next_attempt_at',
  'last_error',
  'result_status',
  'result',
  'answered_at',
  'action',
  'reason',
  'ticket_type',
  'sent_as_offline',
] as const;

/**
 * A ticket's scans after the issuer last confirmed an annulment of it from this kiosk (an annulled check-in is
 * undone: what came before it no longer counts). Takes the ticket's tid as its one parameter.
 */
const SINCE_CONFIRMED_ANNULMENT = `seq > COALESCE((SELECT MAX(seq) FROM scans WHERE tid = ? AND action = 'annul' AND result_status = 'annulled'), 0)`;

export class LocalStore {
  /** Prepared once, reused: preparing costs more than running these small statements (the drain runs thousands). */
  private readonly statements = new Map<string, Database.Statement>();
  /** revokedCount(), once counted; null: count again. */
  private revokedTotal: number | null = null;

  private constructor(private readonly db: Database.Database) {}

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  static open(path: string): LocalStore {
    // Holders' names and the scan history are private to the kiosk user. A new file is made 0600
    // before SQLite opens it (SQLite gives its -wal and -shm the same mode); an existing one is
    // tightened (docs/kiosk.md "Where the kiosk keeps its data").
    if (process.platform !== 'win32') {
      closeSync(openSync(path, 'a', 0o600));
      for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    }
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const store = new LocalStore(db);
    store.migrate();
    // Every state push lists the double admissions, and one is pushed with each verdict, before the
    // scan's answer. Without this index that reads the whole scan history each time (about 4 ms at
    // 10,000 scans, 25 ms at 50,000). An index holds no data of its own and older versions of the
    // app work with it, so it is made here and not as a migration: a new user_version would make
    // an older app refuse the file.
    db.exec(
      `CREATE INDEX IF NOT EXISTS scans_double_admissions ON scans (seq) WHERE admitted_offline = 1 AND result_status = 'already_used'`,
    );
    // The read log (reads that are not scans of their own: repeat reads, calibrations). Made here
    // for the same reason as the index: older versions of the app never read it and keep working.
    db.exec(`CREATE TABLE IF NOT EXISTS read_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      kind TEXT NOT NULL,
      origin TEXT NOT NULL,
      tid TEXT,
      detail TEXT NOT NULL
    )`);
    // The kiosk's audit log (docs/kiosk.md "The kiosk's audit log"): append-only, every record chained to the
    // one before with SHA-256 (protocol/audit-chain.ts). scans cannot be chained themselves: their rows change
    // as answers arrive. Made here for the same reason as read_log.
    db.exec(`CREATE TABLE IF NOT EXISTS audit_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      position INTEGER NOT NULL UNIQUE,
      at TEXT NOT NULL,
      kind TEXT NOT NULL,
      idempotency_key TEXT,
      tid TEXT,
      detail TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL
    )`);
    // A request that was in flight when the process died may or may not have
    // reached the issuer: it goes back to the queue with the SAME key, so the
    // issuer's idempotency answers it consistently (spec "Idempotency summary").
    db.prepare(`UPDATE scans SET queue_state = 'pending' WHERE queue_state = 'sending'`).run();
    return store;
  }

  close(): void {
    this.db.close();
  }

  /** Runs `work` in one transaction: all of its writes commit together or not at all. */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** A write and its audit record in one transaction (a savepoint inside a caller's `atomically`). */
  private withAuditRecord<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) throw new Error(`kiosk database is schema ${current}, newer than this app (${MIGRATIONS.length})`);
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version]!);
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  // --- settings -----------------------------------------------------------

  private getSetting(key: string): string | undefined {
    const row = this.statement('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  private setSetting(key: string, value: string): void {
    this.statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
  }

  /** The device identity; scanner_id is a UUID v4 generated once and kept forever (spec "EnrollRequest"). */
  identity(): ScannerIdentity {
    return this.db.transaction(() => {
      let scannerId = this.getSetting('scanner_id');
      if (!scannerId) {
        scannerId = randomUUID();
        this.setSetting('scanner_id', scannerId);
      }
      let scannerName = this.getSetting('scanner_name');
      if (!scannerName) {
        scannerName = hostname() || 'kiosk';
        this.setSetting('scanner_name', scannerName);
      }
      return { scanner_id: scannerId, scanner_name: scannerName };
    })();
  }

  setScannerName(name: string): void {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) throw new Error('a scanner name has 1 to 200 characters');
    this.setSetting('scanner_name', trimmed);
  }

  getEnrollment(): Enrollment | null {
    const value = this.getSetting('enrollment');
    if (!value) return null;
    const enrollment = JSON.parse(value) as Partial<Enrollment> & Omit<Enrollment, 'tls_cert_sha256' | 'direction'>;
    return { ...enrollment, tls_cert_sha256: enrollment.tls_cert_sha256 ?? null, direction: enrollment.direction ?? 'entry' };
  }

  saveEnrollment(enrollment: Enrollment): void {
    this.setSetting('enrollment', JSON.stringify(enrollment));
  }

  clearEnrollment(): void {
    this.statement(`DELETE FROM settings WHERE key = 'enrollment'`).run();
  }

  // --- staff PIN and kiosk settings (staff-access.ts) ---------------------

  /** The staff PIN's scrypt hash with its salt and cost (never the PIN itself), or null when none is set. */
  getStaffPin(): StoredStaffPin | null {
    const value = this.getSetting('staff_pin');
    return value ? (JSON.parse(value) as StoredStaffPin) : null;
  }

  saveStaffPin(pin: StoredStaffPin): void {
    this.setSetting('staff_pin', JSON.stringify(pin));
  }

  /** Wrong PINs since the last right one and the lockout they earned; kept so a restart does not reset them. */
  getStaffLockout(): StaffLockout {
    const value = this.getSetting('staff_lockout');
    return value ? (JSON.parse(value) as StaffLockout) : { failed: 0, locked_until: null };
  }

  saveStaffLockout(lockout: StaffLockout): void {
    this.setSetting('staff_lockout', JSON.stringify(lockout));
  }

  /** A setup code with `pin_required` enrolled this kiosk: it needs a staff PIN before it scans tickets. */
  staffPinRequired(): boolean {
    return this.getSetting('staff_pin_required') === 'true';
  }

  requireStaffPin(): void {
    this.setSetting('staff_pin_required', 'true');
  }

  getLanguage(): StoredLanguage | null {
    const value = this.getSetting('language');
    return value ? (JSON.parse(value) as StoredLanguage) : null;
  }

  saveLanguage(language: StoredLanguage): void {
    this.setSetting('language', JSON.stringify(language));
  }

  /** The lanes mapped on the Setup screen (docs/kiosk.md "Several scanners"; lanes.ts checks the shape), or null. */
  getLanes(): unknown {
    const value = this.getSetting('lanes');
    return value ? (JSON.parse(value) as unknown) : null;
  }

  /** Saves the lanes, or forgets them (null). */
  saveLanes(lanes: object | null): void {
    if (lanes === null) this.statement(`DELETE FROM settings WHERE key = 'lanes'`).run();
    else this.setSetting('lanes', JSON.stringify(lanes));
  }

  // --- storage recovery ----------------------------------------------------

  /**
   * Puts what was read back from a damaged file into this fresh store, in one
   * transaction. Scans keep their idempotency keys (a queued scan then reaches
   * the issuer exactly once); one in flight at the damage goes back to the
   * queue. Rows the schema would refuse (half-read, mangled) are skipped.
   */
  restoreSalvaged(rows: SalvagedRows): void {
    const insertScan = this.db.prepare(
      `INSERT OR IGNORE INTO scans (${SCAN_COLUMNS.join(', ')}) VALUES (${SCAN_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.db.transaction(() => {
      for (const [key, value] of rows.settings) this.setSetting(key, value);
      for (const row of rows.discovery) {
        if (typeof row['iss'] === 'string' && typeof row['document'] === 'string' && typeof row['fetched_at'] === 'number') {
          this.statement('INSERT OR REPLACE INTO discovery (iss, document, fetched_at) VALUES (?, ?, ?)').run(
            row['iss'],
            row['document'],
            row['fetched_at'],
          );
        }
      }
      const scans = [...rows.scans].sort((a, b) => Number(a['seq']) - Number(b['seq']));
      for (const row of scans) {
        const values = SCAN_COLUMNS.map((column) => {
          if (column === 'queue_state' && row[column] === 'sending') return 'pending';
          if (column === 'sent_as_offline') return row[column] ?? 0; // a file from before door operations
          return row[column] ?? null;
        });
        try {
          insertScan.run(...values);
        } catch {
          // A row whose fields came back unusable (the CHECK constraints refuse it): nothing to send.
        }
      }
    })();
  }

  saveStorageRecovery(recovery: unknown): void {
    this.setSetting('storage_recovery', JSON.stringify(recovery));
  }

  /** The last recovery from a damaged file, kept for IT (docs/kiosk.md "Storage integrity"). */
  getStorageRecovery<T>(): T | null {
    const value = this.getSetting('storage_recovery');
    return value ? (JSON.parse(value) as T) : null;
  }

  // --- scanner calibration and the read log -------------------------------

  /** What calibration learned, per input path (docs/kiosk.md "Calibration"). */
  getCalibrations(): StoredCalibrations {
    const value = this.getSetting('scanner_calibrations');
    return value ? (JSON.parse(value) as StoredCalibrations) : {};
  }

  saveCalibration(origin: ScanOrigin, calibration: CalibrationResult): void {
    this.setSetting('scanner_calibrations', JSON.stringify({ ...this.getCalibrations(), [origin]: calibration }));
  }

  clearCalibrations(): void {
    this.statement(`DELETE FROM settings WHERE key = 'scanner_calibrations'`).run();
  }

  /** One line in the read log. `detail` is for people and never holds scanned text (it may be a setup code). */
  logRead(entry: Omit<ReadLogEntry, 'seq'>): void {
    this.withAuditRecord(() => {
      this.statement('INSERT INTO read_log (at, kind, origin, tid, detail) VALUES (?, ?, ?, ?, ?)').run(
        entry.at,
        entry.kind,
        entry.origin,
        entry.tid,
        entry.detail,
      );
      this.appendAudit('read', null, entry.tid, { kind: entry.kind, origin: entry.origin, detail: entry.detail }, entry.at);
    });
  }

  /** Newest first. */
  readLog(limit = 100): ReadLogEntry[] {
    return this.statement('SELECT seq, at, kind, origin, tid, detail FROM read_log ORDER BY seq DESC LIMIT ?').all(limit) as ReadLogEntry[];
  }

  // --- the audit log (docs/kiosk.md "The kiosk's audit log") ---------------

  /**
   * Appends one record at the end of the chain, in the caller's transaction (the kiosk's one process is the
   * only writer, so the last record is the head). `detail` is for people: never a scanned code or a secret.
   */
  private appendAudit(
    kind: AuditKind,
    idempotencyKey: string | null,
    tid: string | null,
    detail: Record<string, unknown>,
    at?: string,
  ): void {
    const head = this.logHead();
    const row = {
      position: head.position + 1,
      at: at ?? new Date().toISOString(),
      kind,
      idempotency_key: idempotencyKey,
      tid,
      detail: JSON.stringify(detail),
    };
    const hash = chainHash(head.hash, chainFields(row, KIOSK_LOG_CHAIN_FIELDS), nodeSha256Hex);
    this.statement(
      'INSERT INTO audit_log (position, at, kind, idempotency_key, tid, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(row.position, row.at, row.kind, row.idempotency_key, row.tid, row.detail, head.hash, hash);
  }

  /** The chain's head: the last record's position and hash (0 and 64 zeros while the log is empty). */
  logHead(): LogHead {
    const last = this.statement('SELECT position, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as LogHead | undefined;
    return last ?? { position: 0, hash: GENESIS_HASH };
  }

  /** Recomputes every record's hash and follows every link, in storage order: the first broken record, or OK. */
  verifyLog(): LogCheckResult {
    const verifier = new ChainVerifier(nodeSha256Hex);
    let broken: ChainBreak | null = null;
    for (const row of this.statement('SELECT * FROM audit_log ORDER BY seq').iterate() as Iterable<AuditRow>) {
      broken = verifier.next({
        id: row.seq,
        position: row.position,
        prev_hash: row.prev_hash,
        hash: row.hash,
        fields: chainFields(row, KIOSK_LOG_CHAIN_FIELDS),
      });
      if (broken) break;
    }
    if (broken?.kind === 'gap' && this.statement('SELECT 1 FROM audit_log WHERE position = ?').get(broken.missing) !== undefined) {
      broken = { kind: 'reordered', id: broken.id, position: broken.position, expected: broken.missing };
    }
    const head = verifier.head();
    return broken
      ? {
          type: 'log_check',
          ok: false,
          records: verifier.rows,
          head,
          broken: { id: 'id' in broken ? broken.id : 0, kind: broken.kind, message: describeChainBreak(broken, 'record') },
        }
      : { type: 'log_check', ok: true, records: verifier.rows, head, broken: null };
  }

  // --- discovery cache ----------------------------------------------------

  getDiscovery(iss: string): { document: DiscoveryDocument; fetchedAt: number } | null {
    const row = this.statement('SELECT document, fetched_at FROM discovery WHERE iss = ?').get(iss) as
      { document: string; fetched_at: number } | undefined;
    return row ? { document: JSON.parse(row.document) as DiscoveryDocument, fetchedAt: row.fetched_at } : null;
  }

  saveDiscovery(iss: string, document: DiscoveryDocument, fetchedAt: number): void {
    this.statement(
      `INSERT INTO discovery (iss, document, fetched_at) VALUES (?, ?, ?)
         ON CONFLICT (iss) DO UPDATE SET document = excluded.document, fetched_at = excluded.fetched_at`,
    ).run(iss, JSON.stringify(document), fetchedAt);
  }

  // --- scans and the offline queue ---------------------------------------

  /** Commits a new scan with a fresh UUID v4 idempotency key (one per scan attempt). */
  insertScan(scan: NewScan): StoredScan {
    const key = randomUUID();
    return this.withAuditRecord(() => {
      this.insertScanRow(key, scan);
      this.appendAudit('scan', key, scan.tid, {
        eid: scan.eid,
        gate_id: scan.gate_id,
        action: scan.action ?? null,
        scanned_at: scan.scanned_at,
        signature_status: scan.signature_status,
      });
      return this.scan(key)!;
    });
  }

  private insertScanRow(key: string, scan: NewScan): void {
    this.statement(
      `INSERT INTO scans (idempotency_key, code, iss, tid, eid, gate_id, scanner_id, scanned_at, signature_status, queue_state, verdict,
                          action, reason, ticket_type, sent_as_offline)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      key,
      scan.code,
      scan.iss,
      scan.tid,
      scan.eid,
      scan.gate_id,
      scan.scanner_id,
      scan.scanned_at,
      scan.signature_status,
      scan.queue_state,
      scan.verdict ? JSON.stringify(scan.verdict) : null,
      scan.action ?? null,
      scan.reason ?? null,
      scan.ticket_type ?? null,
      scan.sent_as_offline ? 1 : 0,
    );
  }

  scan(idempotencyKey: string): StoredScan | null {
    const row = this.statement('SELECT * FROM scans WHERE idempotency_key = ?').get(idempotencyKey) as ScanRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Records the verdict the door is about to show (commit first, then show). */
  decideScan(idempotencyKey: string, verdict: Verdict, queueState: QueueState): void {
    this.withAuditRecord(() => {
      this.decideScanRow(idempotencyKey, verdict, queueState);
      this.appendAudit('verdict', idempotencyKey, verdict.ticket?.tid ?? null, {
        kind: verdict.kind,
        reason: verdict.kind === 'refuse' ? verdict.reason : null,
        offline: verdict.offline,
        decided_by: verdict.decided_by,
        decided_at: verdict.decided_at,
      });
    });
  }

  private decideScanRow(idempotencyKey: string, verdict: Verdict, queueState: QueueState): void {
    const admitted = verdict.kind === 'admit';
    this.statement(
      `UPDATE scans SET verdict = ?, queue_state = ?,
           admitted_at = CASE WHEN ? THEN ? ELSE admitted_at END,
           admitted_offline = CASE WHEN ? THEN ? ELSE admitted_offline END
         WHERE idempotency_key = ?`,
    ).run(
      JSON.stringify(verdict),
      queueState,
      admitted ? 1 : 0,
      verdict.decided_at,
      admitted ? 1 : 0,
      verdict.offline ? 1 : 0,
      idempotencyKey,
    );
  }

  /** Moves a scan between queue states without touching its verdict. */
  setQueueState(idempotencyKey: string, queueState: QueueState): void {
    this.statement('UPDATE scans SET queue_state = ? WHERE idempotency_key = ?').run(queueState, idempotencyKey);
  }

  /** The issuer's answer (or final rejection) for a scan. */
  recordAnswer(
    idempotencyKey: string,
    answer: { status: string; body: unknown; answeredAt: IsoDateTime; final: 'done' | 'failed'; error?: string },
  ): void {
    this.withAuditRecord(() => {
      this.statement(
        `UPDATE scans SET queue_state = ?, result_status = ?, result = ?, answered_at = ?, last_error = ?, attempts = attempts + 1
           WHERE idempotency_key = ?`,
      ).run(answer.final, answer.status, JSON.stringify(answer.body ?? null), answer.answeredAt, answer.error ?? null, idempotencyKey);
      this.appendAudit('answer', idempotencyKey, null, { status: answer.status, final: answer.final }, answer.answeredAt);
    });
  }

  /** A failed attempt that will be retried: back to the queue, due at `nextAttemptAt`. */
  recordRetry(idempotencyKey: string, nextAttemptAt: number, error: string): void {
    this.statement(
      `UPDATE scans SET queue_state = 'pending', attempts = attempts + 1, next_attempt_at = ?, last_error = ?
         WHERE idempotency_key = ?`,
    ).run(nextAttemptAt, error, idempotencyKey);
  }

  /** Queued scans due now, oldest first. */
  dueScans(nowMs: number, limit: number): StoredScan[] {
    const rows = this.statement(`SELECT * FROM scans WHERE queue_state = 'pending' AND next_attempt_at <= ? ORDER BY seq LIMIT ?`).all(
      nowMs,
      limit,
    ) as ScanRow[];
    return rows.map(fromRow);
  }

  /** When the next queued scan becomes due, or null when the queue is empty. */
  nextDueAt(): number | null {
    const row = this.statement(`SELECT MIN(next_attempt_at) AS due FROM scans WHERE queue_state = 'pending'`).get() as {
      due: number | null;
    };
    return row.due;
  }

  /** Scans that still have to reach the issuer. */
  pendingCount(): number {
    const row = this.statement(`SELECT COUNT(*) AS n FROM scans WHERE queue_state IN ('pending', 'sending')`).get() as { n: number };
    return row.n;
  }

  /** The newest held scan of a ticket (sent again, same key and body, when the ticket is rescanned). */
  heldScanFor(tid: string): StoredScan | null {
    const row = this.statement(`SELECT * FROM scans WHERE tid = ? AND queue_state = 'held' ORDER BY seq DESC LIMIT 1`).get(tid) as
      ScanRow | undefined;
    return row ? fromRow(row) : null;
  }

  /**
   * When this kiosk first admitted the ticket (online or offline), if it did,
   * since the issuer last confirmed an annulment of it from this kiosk (an
   * annulled check-in is undone: a rescan admits).
   */
  firstAdmissionAt(tid: string): IsoDateTime | undefined {
    const row = this.statement(
      `SELECT MIN(admitted_at) AS at FROM scans WHERE tid = ? AND admitted_at IS NOT NULL
         AND ${SINCE_CONFIRMED_ANNULMENT}`,
    ).get(tid, tid) as { at: string | null };
    return row.at ?? undefined;
  }

  /**
   * This kiosk's admissions of the ticket since its last annulment here, oldest first: what its entries per day
   * are counted from offline (docs/kiosk.md "Check-in rules offline"; the issuer counts every kiosk's the same way).
   */
  admissionTimes(tid: string): IsoDateTime[] {
    const rows = this.statement(
      `SELECT admitted_at AS at FROM scans WHERE tid = ? AND admitted_at IS NOT NULL
         AND ${SINCE_CONFIRMED_ANNULMENT}
       ORDER BY seq`,
    ).all(tid, tid) as { at: string }[];
    return rows.map((row) => row.at);
  }

  /** This kiosk's latest admission of the ticket still standing (see firstAdmissionAt), if any: what an annulment undoes. */
  lastAdmissionAt(tid: string): IsoDateTime | undefined {
    const row = this.statement(
      `SELECT MAX(admitted_at) AS at FROM scans WHERE tid = ? AND admitted_at IS NOT NULL
         AND ${SINCE_CONFIRMED_ANNULMENT}`,
    ).get(tid, tid) as { at: string | null };
    return row.at ?? undefined;
  }

  /** This kiosk's latest scan that admitted the ticket: the code and type an annulment of it records. */
  admittingScan(tid: string): StoredScan | null {
    const row = this.statement(`SELECT * FROM scans WHERE tid = ? AND admitted_at IS NOT NULL ORDER BY seq DESC LIMIT 1`).get(tid) as
      ScanRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** This kiosk's offline admissions since `since` (ISO), for the rolling-hour counts (protocol/offline-exposure.ts). */
  offlineAdmissionsSince(since: IsoDateTime): Array<{ ticket_type: string | null; admitted_at: IsoDateTime }> {
    return this.statement(
      `SELECT ticket_type, admitted_at FROM scans WHERE admitted_offline = 1 AND admitted_at >= ? ORDER BY admitted_at`,
    ).all(since) as Array<{ ticket_type: string | null; admitted_at: IsoDateTime }>;
  }

  /**
   * This kiosk's admissions since `since` (ISO), newest first, at most `limit`: what it tells a LAN peer catching
   * up (lan-peers.ts). An admission the issuer has since confirmed annulled from this kiosk is not told.
   */
  admissionsSince(since: IsoDateTime, limit: number): Array<{ tid: string; admitted_at: IsoDateTime; admitted_offline: number }> {
    return this.statement(
      `SELECT tid, admitted_at, admitted_offline FROM scans AS s WHERE admitted_at IS NOT NULL AND admitted_at >= ?
         AND NOT EXISTS (SELECT 1 FROM scans AS a WHERE a.tid = s.tid AND a.action = 'annul' AND a.result_status = 'annulled' AND a.seq > s.seq)
       ORDER BY admitted_at DESC LIMIT ?`,
    ).all(since, limit) as Array<{ tid: string; admitted_at: IsoDateTime; admitted_offline: number }>;
  }

  /** This kiosk's annulments the issuer confirmed, answered since `since` (ISO), newest first: told to a LAN peer catching up. */
  annulmentsSince(since: IsoDateTime, limit: number): Array<{ tid: string; annulled_at: IsoDateTime }> {
    return this.statement(
      `SELECT tid, answered_at AS annulled_at FROM scans WHERE action = 'annul' AND result_status = 'annulled' AND answered_at >= ?
       ORDER BY answered_at DESC LIMIT ?`,
    ).all(since, limit) as Array<{ tid: string; annulled_at: IsoDateTime }>;
  }

  /** Offline admissions not yet answered by the issuer, per ticket type ('' for none): the heartbeat's `offline_exposure`. */
  unsyncedOfflineAdmissions(): Record<string, number> {
    const rows = this.statement(
      `SELECT COALESCE(ticket_type, '') AS type, COUNT(*) AS n FROM scans
         WHERE admitted_offline = 1 AND admitted_at IS NOT NULL AND queue_state IN ('pending', 'sending', 'held') GROUP BY 1`,
    ).all() as Array<{ type: string; n: number }>;
    return Object.fromEntries(rows.map((row) => [row.type, row.n]));
  }

  // --- door operations: the last heartbeat ---------------------------------

  // --- the revocation list (docs/kiosk.md "Revocation list") ------------------

  /** Where the list stands: whose list it is, the cursor to continue from, the last good sync; null before the first. */
  getRevocationSync(): RevocationSync | null {
    const value = this.getSetting('revocations');
    return value ? (JSON.parse(value) as RevocationSync) : null;
  }

  /**
   * One page of the issuer's answer, in one transaction: the tids added, the cursor moved. A list of another
   * issuer or event, or an answer that starts over (`reset`), replaces the list. `syncedAt` is set on the
   * page that completes a sync; otherwise the last good sync's time is kept.
   */
  applyRevocations(page: {
    iss: string;
    eid: string;
    tids: readonly string[];
    cursor: string;
    reset: boolean;
    syncedAt: IsoDateTime | null;
  }): void {
    this.db.transaction(() => {
      const before = this.getRevocationSync();
      const sameList = before !== null && before.iss === page.iss && before.eid === page.eid;
      if (!sameList || page.reset) this.statement('DELETE FROM revoked_tickets').run();
      const insert = this.statement('INSERT OR IGNORE INTO revoked_tickets (tid) VALUES (?)');
      for (const tid of page.tids) insert.run(tid);
      const sync: RevocationSync = {
        iss: page.iss,
        eid: page.eid,
        cursor: page.cursor,
        synced_at: page.syncedAt ?? (sameList && !page.reset ? before.synced_at : null),
      };
      this.setSetting('revocations', JSON.stringify(sync));
    })();
    this.revokedTotal = null;
  }

  /** A ticket the issuer answered `revoked` online: kept in the list at once (revocations are final). */
  addRevoked(tid: string): void {
    this.statement('INSERT OR IGNORE INTO revoked_tickets (tid) VALUES (?)').run(tid);
    this.revokedTotal = null; // counted again when next shown (a caller's transaction may still roll this back)
  }

  isRevoked(tid: string): boolean {
    return this.statement('SELECT 1 FROM revoked_tickets WHERE tid = ?').get(tid) !== undefined;
  }

  /** Counted once and kept until the list changes (every state push shows it; the list can hold 100,000 tickets). */
  revokedCount(): number {
    this.revokedTotal ??= (this.statement('SELECT COUNT(*) AS n FROM revoked_tickets').get() as { n: number }).n;
    return this.revokedTotal;
  }

  getHeartbeat(): StoredHeartbeat | null {
    const value = this.getSetting('door_heartbeat');
    return value ? (JSON.parse(value) as StoredHeartbeat) : null;
  }

  saveHeartbeat(heartbeat: StoredHeartbeat): void {
    this.setSetting('door_heartbeat', JSON.stringify(heartbeat));
  }

  clearHeartbeat(): void {
    this.statement(`DELETE FROM settings WHERE key = 'door_heartbeat'`).run();
  }

  doubleAdmissions(): DoubleAdmission[] {
    const rows = this.statement(
      `SELECT * FROM scans WHERE admitted_offline = 1 AND result_status IN ('already_used', 'revoked') AND admitted_at IS NOT NULL ORDER BY seq`,
    ).all() as ScanRow[];
    return rows.map(fromRow).map((scan) => {
      const result = scan.result as { ticket?: { checked_in_at?: string | null; holder_name?: string } } | null;
      const entry: DoubleAdmission = {
        tid: scan.tid,
        eid: scan.eid,
        conflict: scan.result_status === 'revoked' ? 'revoked' : 'already_used',
        admitted_here_at: scan.admitted_at!,
        first_checked_in_at: result?.ticket?.checked_in_at ?? null,
        idempotency_key: scan.idempotency_key,
      };
      const holder = result?.ticket?.holder_name ?? (scan.verdict?.ticket?.holder_name as string | undefined);
      if (holder !== undefined) entry.holder_name = holder;
      return entry;
    });
  }
}

/** The exact request body for a stored scan: identical on every retry (spec check-in rule 1). */
export function checkInRequestFor(scan: StoredScan): DoorCheckInRequest {
  const request: DoorCheckInRequest = {
    tid: scan.tid,
    eid: scan.eid,
    scanned_at: scan.scanned_at,
    scanner_id: scan.scanner_id,
    idempotency_key: scan.idempotency_key,
  };
  if (scan.gate_id !== null) request.gate_id = scan.gate_id;
  if (scan.signature_status === 'invalid') request.signature_status = 'invalid';
  // Door operations: our kiosks always say what a scan is (docs/protocol.md "Door operations").
  if (scan.action !== null) request.action = scan.action;
  if (scan.sent_as_offline) request.admitted_offline = true;
  if (scan.reason !== null) request.reason = scan.reason;
  return request;
}

function fromRow(row: ScanRow): StoredScan {
  return {
    ...row,
    verdict: row.verdict ? (JSON.parse(row.verdict) as Verdict) : null,
    admitted_offline: row.admitted_offline === 1,
    sent_as_offline: row.sent_as_offline === 1,
    result: row.result ? (JSON.parse(row.result) as unknown) : null,
  };
}
