/**
 * The kiosk's durable local state: one SQLite file (better-sqlite3), kiosk.db (docs/kiosk.md "Where the kiosk
 * keeps its data"). LocalStore opens it and hands each call to the file that holds that part:
 *
 * - database.ts: opening the file, its mode, pragmas (WAL + synchronous=FULL), schema and migrations;
 * - scans.ts: a scan and its verdict, committed before the verdict is shown, and this kiosk's own admissions;
 * - queue.ts: the offline queue (what is due, retries, the issuer's answer);
 * - lan.ts: what this kiosk tells a LAN peer catching up;
 * - settings.ts: the settings table (identity, enrollment, staff PIN and lockout, language, lanes, the last
 *   heartbeat, calibrations, the revocation cursor, the last recovery), one typed read and save;
 * - revocations.ts: the revocation list;
 * - discovery-cache.ts: the last good discovery document per issuer;
 * - read-log.ts: reads that made no scan of their own;
 * - audit-log.ts: the chained audit log every scan, verdict, answer and read is recorded in;
 * - salvaged-rows.ts: rows read back from a damaged file, put into a fresh one (store-recovery.ts).
 *
 * The API key is NOT here: see api-key-store.ts.
 */
import { KioskHandouts } from './handouts.js';
import type { IdCheck } from '../../../protocol/id-check.js';
import type Database from 'better-sqlite3';
import type { DiscoveryDocument, IsoDateTime, Verdict, VerdictAttention } from '../../../protocol/index.js';
import type { LogHead } from '../../../protocol/audit-chain.js';
import type { LogCheckResult } from '../../../renderer/kiosk-bridge-types.js';
import type { CalibrationResult } from '../decide/calibration.js';
import type { KnownClock } from '../decide/clock.js';
import type { ScanOrigin } from '../decide/repeat-reads.js';
import { sendAfter, type StaffAck } from '../decide/staff-actions.js';
import {
  appendAudit,
  auditDoorRefusal,
  auditVerdict,
  logHead,
  recordHashAt,
  staffRecordsAfter,
  verifyLog,
  type StaffAuditRecord,
  type VerdictAuditExtra,
} from './audit-log.js';
import { openDatabase, Statements } from './database.js';
import { readDiscovery, saveDiscovery } from './discovery-cache.js';
import {
  admissionsSince,
  annulmentsSince,
  exitsSince,
  handoutsSince,
  revokedScanners,
  saveRevokedScanners,
  type OwnExit,
  type OwnHandout,
} from './lan.js';
import { dueScans, heldScanFor, nextDueAt, pendingCount, recordAnswer, recordRetry, setQueueState } from './queue.js';
import { logRead, readLog, type ReadLogEntry } from './read-log.js';
import { AttentionNotes } from './notes.js';
import { revokedStaff, RevokedTickets, saveRevokedStaff, type RevokedTicketsPage } from './revocations.js';
import { restoreSalvaged, type SalvagedRows } from './salvaged-rows.js';
import {
  admissionTimes,
  admittingScan,
  decideScan,
  doubleAdmissions,
  firstAdmissionAt,
  insertScan,
  lastAdmissionAt,
  offlineAdmissionsSince,
  scanByKey,
  unsyncedOfflineAdmissions,
  type DoubleAdmission,
  type NewScan,
  type QueueState,
  type StoredScan,
} from './scans.js';
import {
  clearSetting,
  identity,
  readEnrollment,
  readSetting,
  saveScannerName,
  saveSetting,
  type Enrollment,
  type RevocationSync,
  type ScannerIdentity,
  type StaffLockout,
  type StoredCalibrations,
  type StoredHeartbeat,
  type StoredLanguage,
  type StoredStaffPin,
  type StoredStaffPerson,
} from './settings.js';

export type { AuditKind, VerdictAuditExtra } from './audit-log.js';
export { SCHEMA_VERSION } from './database.js';
export type { ReadLogEntry } from './read-log.js';
export { isRevocationListOf } from './revocations.js';
export type { SalvagedRows } from './salvaged-rows.js';
export { checkInRequestFor, type DoubleAdmission, type NewScan, type QueueState, type StoredScan } from './scans.js';
export type {
  Enrollment,
  RevocationSync,
  ScannerIdentity,
  StaffLockout,
  StoredCalibrations,
  StoredHeartbeat,
  StoredLanguage,
  StoredStaffPin,
  StoredStaffPerson,
} from './settings.js';

import { partyFacts, type PartyFacts } from './party.js';

export class LocalStore {
  private readonly sql: Statements;
  private readonly revoked: RevokedTickets;
  /** The synced attention notes (notes.ts, docs/kiosk.md "Attention notes"). */
  readonly attentionNotes: AttentionNotes;
  /** docs/kiosk.md "Handouts": the synced lists and the handouts confirmed here. */
  readonly handouts: KioskHandouts;

  private constructor(private readonly db: Database.Database) {
    this.sql = new Statements(db);
    this.revoked = new RevokedTickets(this.sql);
    this.attentionNotes = new AttentionNotes(this.sql);
    this.handouts = new KioskHandouts(this.sql);
  }

  /** The synced notes of a ticket of the enrolled event (its row and its type's rule); null when none apply. */
  attentionOf(tid: string, ticketType: string | null): VerdictAttention | null {
    const enrollment = this.getEnrollment();
    return enrollment ? this.attentionNotes.attentionOf(enrollment, tid, ticketType) : null;
  }

  /** docs/kiosk.md "ID checks": the check a ticket of the enrolled event needs by the synced list; `unsynced`: no list yet. */
  idCheckOf(tid: string, ticketType: string | null, holderName: string | null): IdCheck | null | 'unsynced' {
    const enrollment = this.getEnrollment();
    return enrollment ? this.attentionNotes.idCheckOf(enrollment, tid, ticketType, holderName) : 'unsynced';
  }

  /** docs/kiosk.md "Party tickets": a ticket's party size by the synced list (1: one person); `unsynced`: no list yet. */
  partySizeOf(tid: string): number | 'unsynced' {
    const enrollment = this.getEnrollment();
    return enrollment ? this.attentionNotes.partySizeOf(enrollment, tid) : 'unsynced';
  }

  /** docs/kiosk.md "Party tickets": the issuer's last answer about the ticket's party and this kiosk's unanswered entries. */
  partyFacts(tid: string): PartyFacts {
    return partyFacts(this.sql, tid);
  }

  static open(path: string): LocalStore {
    return new LocalStore(openDatabase(path));
  }

  close(): void {
    this.db.close();
  }

  /** Runs `work` in one transaction: all of its writes commit together or not at all. */
  atomically<T>(work: () => T): T {
    return this.sql.transaction(work);
  }

  // --- settings (settings.ts) ---------------------------------------------

  /** The device identity; scanner_id is a UUID v4 generated once and kept forever. */
  identity(): ScannerIdentity {
    return identity(this.sql);
  }

  setScannerName(name: string): void {
    saveScannerName(this.sql, name);
  }

  getEnrollment(): Enrollment | null {
    return readEnrollment(this.sql);
  }

  saveEnrollment(enrollment: Enrollment): void {
    saveSetting(this.sql, 'enrollment', enrollment);
  }

  clearEnrollment(): void {
    clearSetting(this.sql, 'enrollment');
  }

  /** The staff PIN's scrypt hash with its salt and cost (never the PIN itself), or null when none is set. */
  getStaffPin(): StoredStaffPin | null {
    return readSetting(this.sql, 'staff_pin');
  }

  saveStaffPin(pin: StoredStaffPin): void {
    saveSetting(this.sql, 'staff_pin', pin);
  }

  /** The crew members with a PIN of their own (hashes only). */
  getStaffPeople(): StoredStaffPerson[] {
    return readSetting(this.sql, 'staff_people') ?? [];
  }

  saveStaffPeople(people: StoredStaffPerson[]): void {
    saveSetting(this.sql, 'staff_people', people);
  }

  /** The badge ids the issuer revoked for the event (the revocation list's `revoked_badges`), as last synced. */
  getRevokedBadges(eid: string): string[] {
    return revokedStaff(this.sql, 'badges', eid);
  }

  saveRevokedBadges(eid: string, sids: readonly string[]): void {
    saveRevokedStaff(this.sql, 'badges', eid, sids);
  }

  /** A staff action, unlock or refusal, with who was at the kiosk (docs/kiosk.md "The kiosk's audit log"). */
  auditStaff(detail: Record<string, unknown>): void {
    this.sql.transaction(() => appendAudit(this.sql, 'staff', null, null, detail));
  }

  /** Wrong PINs since the last right one and the lockout they earned; kept so a restart does not reset them. */
  getStaffLockout(): StaffLockout {
    return readSetting(this.sql, 'staff_lockout') ?? { failed: 0, locked_until: null };
  }

  saveStaffLockout(lockout: StaffLockout): void {
    saveSetting(this.sql, 'staff_lockout', lockout);
  }

  /** A setup code with `pin_required` enrolled this kiosk: it needs a staff PIN before it scans tickets. */
  staffPinRequired(): boolean {
    return readSetting(this.sql, 'staff_pin_required') === 'true';
  }

  requireStaffPin(): void {
    saveSetting(this.sql, 'staff_pin_required', 'true');
  }

  getLanguage(): StoredLanguage | null {
    return readSetting(this.sql, 'language');
  }

  saveLanguage(language: StoredLanguage): void {
    saveSetting(this.sql, 'language', language);
  }

  /** The lanes mapped on the Setup screen (docs/kiosk.md "Several scanners"; lanes.ts checks the shape), or null. */
  getLanes(): unknown {
    return readSetting(this.sql, 'lanes');
  }

  /** Saves the lanes, or forgets them (null). */
  saveLanes(lanes: object | null): void {
    if (lanes === null) clearSetting(this.sql, 'lanes');
    else saveSetting(this.sql, 'lanes', lanes);
  }

  getHeartbeat(): StoredHeartbeat | null {
    return readSetting(this.sql, 'door_heartbeat');
  }

  saveHeartbeat(heartbeat: StoredHeartbeat): void {
    saveSetting(this.sql, 'door_heartbeat', heartbeat);
  }

  clearHeartbeat(): void {
    clearSetting(this.sql, 'door_heartbeat');
  }

  /** What calibration learned, per input path (docs/kiosk.md "Calibration"). */
  getCalibrations(): StoredCalibrations {
    return readSetting(this.sql, 'scanner_calibrations') ?? {};
  }

  saveCalibration(origin: ScanOrigin, calibration: CalibrationResult): void {
    saveSetting(this.sql, 'scanner_calibrations', { ...this.getCalibrations(), [origin]: calibration });
  }

  clearCalibrations(): void {
    clearSetting(this.sql, 'scanner_calibrations');
  }

  /** What the issuer's answers said of this kiosk's clock (docs/kiosk.md "The kiosk's clock"), or null before the first. */
  getIssuerClock(): KnownClock | null {
    const known = readSetting(this.sql, 'issuer_clock');
    const numbers = known && [known.low_ms, known.high_ms, known.offset_ms, known.measured_at_ms].every(Number.isFinite);
    return numbers ? known : null;
  }

  saveIssuerClock(known: KnownClock): void {
    saveSetting(this.sql, 'issuer_clock', known);
  }

  // --- storage recovery (salvaged-rows.ts, store-recovery.ts) --------------

  /** Puts what was read back from a damaged file into this fresh store, in one transaction (see salvaged-rows.ts). */
  restoreSalvaged(rows: SalvagedRows): void {
    restoreSalvaged(this.sql, rows);
  }

  saveStorageRecovery(recovery: unknown): void {
    saveSetting(this.sql, 'storage_recovery', recovery);
  }

  /** The last recovery from a damaged file, kept for IT (docs/kiosk.md "Storage integrity"). */
  getStorageRecovery<T>(): T | null {
    return readSetting(this.sql, 'storage_recovery') as T | null;
  }

  // --- the read log (read-log.ts) and the audit log (audit-log.ts) ---------

  /** One line in the read log. `detail` is for people and never holds scanned text (it may be a setup code). */
  logRead(entry: Omit<ReadLogEntry, 'seq'>): void {
    logRead(this.sql, entry);
  }

  /** Newest first. */
  readLog(limit = 100): ReadLogEntry[] {
    return readLog(this.sql, limit);
  }

  /** The chain's head: the last record's position and hash (0 and 64 zeros while the log is empty). */
  logHead(): LogHead {
    return logHead(this.sql);
  }

  /**
   * The staff records not yet acknowledged by the issuer, oldest first, at most `limit` (docs/kiosk.md "The
   * kiosk's audit log"): after the acknowledged one, or from the start of a log that no longer holds it.
   */
  unacknowledgedStaffRecords(limit: number): StaffAuditRecord[] {
    const ack = readSetting(this.sql, 'staff_actions_acknowledged');
    return staffRecordsAfter(this.sql, sendAfter(ack, ack === null ? null : recordHashAt(this.sql, ack.position)), limit);
  }

  /** The issuer stored the staff records up to `ack`: kept, so none of them is sent again after a restart. */
  acknowledgeStaffRecords(ack: StaffAck): void {
    saveSetting(this.sql, 'staff_actions_acknowledged', ack);
  }

  /** Recomputes every record's hash and follows every link, in storage order: the first broken record, or OK. */
  verifyLog(): LogCheckResult {
    return verifyLog(this.sql);
  }

  // --- discovery cache (discovery-cache.ts) --------------------------------

  getDiscovery(iss: string): { document: DiscoveryDocument; fetchedAt: number } | null {
    return readDiscovery(this.sql, iss);
  }

  saveDiscovery(iss: string, document: DiscoveryDocument, fetchedAt: number): void {
    saveDiscovery(this.sql, iss, document, fetchedAt);
  }

  // --- scans (scans.ts) ----------------------------------------------------

  /** Commits a new scan with a fresh UUID v4 idempotency key (one per scan attempt). */
  insertScan(scan: NewScan): StoredScan {
    return insertScan(this.sql, scan);
  }

  scan(idempotencyKey: string): StoredScan | null {
    return scanByKey(this.sql, idempotencyKey);
  }

  /** Records the verdict the door is about to show (commit first, then show). */
  decideScan(idempotencyKey: string, verdict: Verdict, queueState: QueueState, extra?: VerdictAuditExtra): void {
    decideScan(this.sql, idempotencyKey, verdict, queueState, extra);
  }

  /** A scan turned away before any verdict (the key refused or expired, no staff PIN yet): its audit record (audit-log.ts). */
  auditDoorRefusal(tid: string | null, reason: string, at: string, extra?: Record<string, unknown>): void {
    auditDoorRefusal(this.sql, tid, reason, at, extra);
  }

  /** A verdict shown without a scan row to decide: its audit record alone (audit-log.ts). */
  auditVerdict(idempotencyKey: string | null, verdict: Verdict, extra?: VerdictAuditExtra): void {
    auditVerdict(this.sql, idempotencyKey, verdict, extra);
  }

  /** When this kiosk first admitted the ticket since the issuer last confirmed an annulment of it from this kiosk. */
  firstAdmissionAt(tid: string): IsoDateTime | undefined {
    return firstAdmissionAt(this.sql, tid);
  }

  /** This kiosk's admissions of the ticket since its last annulment here, oldest first. */
  admissionTimes(tid: string): IsoDateTime[] {
    return admissionTimes(this.sql, tid);
  }

  /** This kiosk's latest admission of the ticket still standing, if any: what an annulment undoes. */
  lastAdmissionAt(tid: string): IsoDateTime | undefined {
    return lastAdmissionAt(this.sql, tid);
  }

  /** This kiosk's latest scan that admitted the ticket: the code and type an annulment of it records. */
  admittingScan(tid: string): StoredScan | null {
    return admittingScan(this.sql, tid);
  }

  /** This kiosk's offline admissions since `since` (ISO), for the rolling-hour counts (protocol/offline-exposure.ts). */
  offlineAdmissionsSince(since: IsoDateTime): Array<{ ticket_type: string | null; admitted_at: IsoDateTime }> {
    return offlineAdmissionsSince(this.sql, since);
  }

  /** Offline admissions not yet answered by the issuer, per ticket type ('' for none): the heartbeat's `offline_exposure`. */
  unsyncedOfflineAdmissions(): Record<string, number> {
    return unsyncedOfflineAdmissions(this.sql);
  }

  /** The conflict report (docs/kiosk.md "Double admissions"). */
  doubleAdmissions(): DoubleAdmission[] {
    return doubleAdmissions(this.sql);
  }

  // --- the offline queue (queue.ts) ----------------------------------------

  /** Moves a scan between queue states without touching its verdict. */
  setQueueState(idempotencyKey: string, queueState: QueueState): void {
    setQueueState(this.sql, idempotencyKey, queueState);
  }

  /** The issuer's answer (or final rejection) for a scan. */
  recordAnswer(
    idempotencyKey: string,
    answer: { status: string; body: unknown; answeredAt: IsoDateTime; final: 'done' | 'failed'; error?: string },
  ): void {
    recordAnswer(this.sql, idempotencyKey, answer);
  }

  /** A failed attempt that will be retried: back to the queue, due at `nextAttemptAt`. */
  recordRetry(idempotencyKey: string, nextAttemptAt: number, error: string): void {
    recordRetry(this.sql, idempotencyKey, nextAttemptAt, error);
  }

  /** Queued scans due now, oldest first. */
  dueScans(nowMs: number, limit: number): StoredScan[] {
    return dueScans(this.sql, nowMs, limit);
  }

  /** When the next queued scan becomes due, or null when the queue is empty. */
  nextDueAt(): number | null {
    return nextDueAt(this.sql);
  }

  /** Scans that still have to reach the issuer. */
  pendingCount(): number {
    return pendingCount(this.sql);
  }

  /** The newest held scan of a ticket (sent again, same key and body, when the ticket is rescanned). */
  heldScanFor(tid: string): StoredScan | null {
    return heldScanFor(this.sql, tid);
  }

  // --- what a LAN peer catching up is told (lan.ts) ------------------------

  /** This kiosk's admissions since `since`, newest first, at most `limit`; confirmed annulled ones left out. */
  admissionsSince(
    since: IsoDateTime,
    limit: number,
  ): Array<{ tid: string; admitted_at: IsoDateTime; admitted_offline: number; people: number | null }> {
    return admissionsSince(this.sql, since, limit);
  }

  /** This kiosk's annulments the issuer confirmed, answered since `since`, newest first. */
  annulmentsSince(since: IsoDateTime, limit: number): Array<{ tid: string; annulled_at: IsoDateTime; receipt: string | null }> {
    return annulmentsSince(this.sql, since, limit);
  }

  /** This kiosk's exits since `since`, newest first, at most `limit`. */
  exitsSince(since: IsoDateTime, limit: number): OwnExit[] {
    return exitsSince(this.sql, since, limit);
  }

  /** This kiosk's handouts given since `since`, newest first, at most `limit`. */
  handoutsSince(since: IsoDateTime, limit: number): OwnHandout[] {
    return handoutsSince(this.sql, since, limit);
  }

  /** The event's revoked scanners (docs/kiosk.md "Kiosks on one LAN"), kept from the revocation list; read once, then cached. */
  private revokedScannerIds: { eid: string; ids: ReadonlySet<string> } | null = null;

  saveRevokedScanners(eid: string, scannerIds: readonly string[]): void {
    saveRevokedScanners(this.sql, eid, scannerIds);
    this.revokedScannerIds = { eid, ids: new Set(scannerIds) };
  }

  revokedScanners(eid: string): ReadonlySet<string> {
    if (this.revokedScannerIds?.eid !== eid) this.revokedScannerIds = { eid, ids: new Set(revokedScanners(this.sql, eid)) };
    return this.revokedScannerIds.ids;
  }

  // --- the revocation list (revocations.ts) --------------------------------

  /** Where the list stands: whose list it is, the cursor to continue from, the last good sync; null before the first. */
  getRevocationSync(): RevocationSync | null {
    return readSetting(this.sql, 'revocations');
  }

  /** One page of the issuer's answer, in one transaction (see RevokedTickets.applyPage). */
  applyRevocations(page: RevokedTicketsPage): void {
    this.revoked.applyPage(page);
  }

  /** A ticket the issuer answered `revoked` online: kept in the list at once (revocations are final). */
  addRevoked(tid: string): void {
    this.revoked.add(tid);
  }

  isRevoked(tid: string): boolean {
    return this.revoked.has(tid);
  }

  revokedCount(): number {
    return this.revoked.count();
  }
}
