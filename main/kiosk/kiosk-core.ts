/**
 * The kiosk core: plain Node, no Electron. The Electron shell and the web host
 * both wrap one KioskCore and expose it as the KioskApi.
 *
 * A scan flows (docs/architecture.md "One scan at the door, offline and online"):
 *   route (tkt / tsetup / garbage) → offline rules (protocol/verdict.ts; an
 *   unknown kid triggers one rate-limited discovery refetch) → commit the scan
 *   with a fresh idempotency key → POST check-in within the online budget →
 *   on timeout or network failure, the offline policy → commit the verdict →
 *   show it. When no request will be sent (known offline with the optimistic
 *   policy, lost authorisation), the scan and its verdict are one commit.
 *   The queue drains in the background while the issuer answers; when is
 *   drain-schedule.ts, how is queue-drain.ts.
 */
import { diagnose, findCalibrationCode, translate, type CalibrationMatch, type CalibrationResult } from './decide/calibration.js';
import {
  DEFAULT_REPEAT_READ_WINDOW_MS,
  RepeatReadFilter,
  VERDICT_ON_SCREEN_MS,
  type RepeatRead,
  type ScanOrigin,
} from './decide/repeat-reads.js';
import type { ReadDetails, ScannerDevice } from './scanner/scan-event.js';
import { LaneMapping, laneFor, lanesView, matches, storedLanes, type Lane, type Lanes } from './decide/lanes.js';
import { verifyEd25519Node } from './node-ed25519.js';
import { EventEmitter } from 'node:events';
import {
  ANY_SETUP_CODE,
  QrCodeError,
  SETUP_PREFIX,
  TICKET_CODE_START,
  decodeSetupCode,
  decodeTicketCode,
  evaluateTicketOffline,
  offlineVerdict,
  exitVerdict,
  ticketFromPayload,
  exposureRefusal,
  type DoorScanResponse,
  type GateDirection,
  unknownTicketVerdict,
  verdictFromCheckIn,
  type DiscoveryDocument,
  type OfflineEvaluation,
  type OfflinePolicy,
  type SetupPayload,
  type TicketPayload,
  type Verdict,
} from '../../protocol/index.js';
import type { ApiKeyStore } from './store/api-key-store.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './decide/backoff.js';
import { DiscoveryCache, heartbeatUrlOf, type RefreshResult } from './sync/discovery.js';
import { DrainSchedule } from './sync/drain-schedule.js';
import { defaultPlatform, enroll, setupProblem } from './sync/enrollment.js';
import { IssuerClient, SCANNER_UNAUTHORIZED_MESSAGE, type FetchLike, type IssuerClientOptions } from './sync/issuer-client.js';
import type {
  AnnulResult,
  ConnectionState,
  KioskApi,
  KioskLanguage,
  KioskState,
  LanguageCode,
  LeaveKioskModeResult,
  ScanResult,
  SetLanguageResult,
  SetStaffPinResult,
  SetupSummary,
  StaffLocked,
  LogCheckResult,
  LanesRequest,
  StaffUnlockResult,
  StatusLookupResult,
} from './kiosk-api.js';
import { StaffAccess } from './staff-access.js';
import { callLabel, type KioskCall } from '../../protocol/access.js';
import { needsStaff } from './decide/access.js';
import type { PeerAdmission, PeerNetwork } from './sync/lan-peers.js';
import { ANNUL_NOT_ALLOWED_MESSAGE, DEFAULT_ANNUL_WINDOW_MS, DoorOperations, HEARTBEAT_INTERVAL_MS } from './decide/door-operations.js';
import {
  checkInRequestFor,
  type LocalStore,
  type Enrollment,
  type NewScan,
  type StoredCalibrations,
  type StoredScan,
} from './store/local-store.js';
import { DEFAULT_REVOCATION_MAX_AGE_MS, REVOCATION_SYNC_INTERVAL_MS, RevocationSync } from './sync/revocation-sync.js';
import { revocationsUrlOf } from '../../protocol/revocations.js';
import { isStorageFault, openStoreWithRecovery, recoveryMessage, type StorageRecovery } from './store/store-recovery.js';
import { DEFAULT_DRAIN_CONCURRENCY, drainQueue, storedAnswerOf, type DrainReport } from './sync/queue-drain.js';

export interface KioskCoreOptions {
  /** The SQLite file of the kiosk's local state. */
  dbPath: string;
  apiKeys: ApiKeyStore;
  fetch?: FetchLike;
  dispatcher?: IssuerClientOptions['dispatcher'];
  /** Time the door waits for the issuer before taking the offline path. */
  onlineBudgetMs?: number;
  offlinePolicy?: OfflinePolicy;
  drainConcurrency?: number;
  drainTimeoutMs?: number;
  /** Status lookups and enrollment are not at the door's pace: a longer timeout. */
  interactiveTimeoutMs?: number;
  backoff?: BackoffOptions;
  discoveryMaxAgeMs?: number;
  discoveryMinRefetchIntervalMs?: number;
  /** Sent as scanner_platform at enrollment. */
  platform?: string;
  /** Drain in the background on timers (default true). Tests may drive drain() themselves. */
  autoDrain?: boolean;
  /**
   * A read of the same code within this time of its first read (and while its
   * verdict is on screen) is the same scan (repeat-reads.ts). Default 3 s.
   */
  repeatReadWindowMs?: number;
  /** How long a staff unlock lasts since the last staff action (staff-access.ts; default 2 minutes). */
  staffIdleMs?: number;
  /** How long after a check-in staff may annul it at the door (docs/kiosk.md "Annul at the door"). Default 2 minutes. */
  annulWindowMs?: number;
  /** Scanner heartbeat period while enrolled (docs/protocol.md "Scanner heartbeat"); default 1 minute, 0 for none on a timer (tests call heartbeat()). */
  heartbeatIntervalMs?: number;
  /** Revocation list sync period while enrolled (docs/kiosk.md "Revocation list"); default 1 minute, 0 for none on a timer (tests call syncRevocations()). */
  revocationSyncIntervalMs?: number;
  /** Ready warns when the revocation list is older than this (docs/kiosk.md "Revocation list"); default 15 minutes. */
  revocationMaxAgeMs?: number;
  /**
   * Kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN"): joined with the event's LAN key once
   * enrolled; consulted offline (check `seen_by_peer`), told of this kiosk's admissions. The host starts it.
   */
  lan?: PeerNetwork;
  /** One line per event worth an operator's attention. Never receives scanned text or secrets. */
  log?: (line: string) => void;
  now?: () => number;
  random?: () => number;
  /** Lanes from the configuration file (docs/kiosk.md "Several scanners"): they win over the Setup screen's mapping. */
  lanes?: Lanes | null;
}

/** The HID scanner's state as the host's scanner manager reports it. */
export interface HidScannerStatus {
  state: 'connected' | 'disconnected';
  reason?: string | null;
  message: string;
}

export const DEFAULT_ONLINE_BUDGET_MS = 1500;
const LAST_VERDICTS = 20;
const NOT_ENROLLED = 'this kiosk is not enrolled: scan a setup code';
const SCANNER_KEY_EXPIRED_MESSAGE = "this scanner's key has expired — re-enroll";
const STAFF_PIN_NEEDED = 'set a staff PIN first: this kiosk scans tickets once one is set';
export const LANGUAGE_CODES: readonly LanguageCode[] = ['en', 'de', 'fr', 'es'];
const DEFAULT_LANGUAGE: KioskLanguage = { primary: 'en', secondary: null };

export class KioskCore implements KioskApi {
  private readonly events = new EventEmitter();
  private readonly store: LocalStore;
  /** The staff PIN and unlock (docs/kiosk.md "Staff PIN"); staff-only calls go through guarded(). */
  private readonly staff: StaffAccess;
  /** The host's way out of kiosk mode (the Electron app in kiosk mode); null when it has none. */
  private kioskModeExit: (() => void | Promise<void>) | null = null;
  private readonly client: IssuerClient;
  private readonly discovery: DiscoveryCache;
  private readonly now: () => number;
  private readonly repeatReads: RepeatReadFilter<ScanResult>;
  private readonly log: (line: string) => void;
  /** What calibration learned per input path; read once, changed only by calibrate and reset. */
  private calibrations: StoredCalibrations;
  private readAgain: KioskState['read_again'] = null;
  private hidScanner: KioskState['hid_scanner'] = null;
  private storage: KioskState['storage'];
  /** The last state read from the store, shown while a storage fault keeps it from being read again. */
  private lastSnapshot: KioskState | null = null;
  private readonly random: () => number;
  private readonly budgetMs: number;
  private readonly policy: OfflinePolicy;
  private readonly backoff: BackoffOptions;
  private connection: ConnectionState = 'unknown';
  private authorised = true;
  private lastVerdicts: Verdict[] = [];
  private pendingSetup: SetupPayload | null = null;
  /** Scans run one at a time, so "seen before on this kiosk" cannot race. */
  private scanChain: Promise<unknown> = Promise.resolve();
  /** When the queue is sent (timers, backoff, holds): drain-schedule.ts. */
  private readonly drains: DrainSchedule;
  private readonly drainAbort = new AbortController();
  /** Fire-and-forget work (background discovery refreshes) that close() must wait for. */
  private readonly background = new Set<Promise<unknown>>();
  private closed = false;
  /** Door operations: the heartbeat and its last answer, offline exposure (door-operations.ts). */
  private readonly door: DoorOperations;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  /** The revocation list (revocation-sync.ts) and its timer. */
  private readonly revocations: RevocationSync;
  private revocationTimer: ReturnType<typeof setInterval> | undefined;
  private heartbeatRunning: Promise<void> | null = null;
  /** Several scanners, one per lane (lanes.ts): the lanes, where they come from, a mapping under way, the scanners open now. */
  private lanes: Lanes | null;
  private readonly lanesSource: 'setup' | 'file';
  private laneMapping: LaneMapping | null = null;
  private scannerDevices: ScannerDevice[] = [];
  /** The lane of the scan being decided (scans run one at a time): its verdict carries it. */
  private scanLane: Lane | null = null;

  constructor(private readonly options: KioskCoreOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.budgetMs = options.onlineBudgetMs ?? DEFAULT_ONLINE_BUDGET_MS;
    this.policy = options.offlinePolicy ?? 'optimistic';
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.log = options.log ?? (() => undefined);
    this.drains = new DrainSchedule({
      pass: () => this.drainPass(),
      auto: options.autoDrain !== false,
      backoff: this.backoff,
      now: this.now,
      random: this.random,
    });
    // A damaged file is set aside and its readable rows carried over (store-recovery.ts).
    const opened = openStoreWithRecovery(options.dbPath, { log: this.log });
    this.store = opened.store;
    // This run's recovery is news for the door too; an earlier one stays on Setup for IT.
    const recovery = this.store.getStorageRecovery<StorageRecovery>();
    this.storage = recovery
      ? {
          state: opened.recovery ? 'recovered' : 'recovered_earlier',
          message: recoveryMessage(recovery),
          damaged_file: recovery.damaged_file,
        }
      : null;
    this.calibrations = this.store.getCalibrations();
    this.lanesSource = options.lanes ? 'file' : 'setup';
    this.lanes = options.lanes ?? storedLanes(this.store.getLanes());
    this.staff = new StaffAccess({
      store: this.store,
      now: this.now,
      log: this.log,
      onExpiry: () => this.changed(),
      ...(options.staffIdleMs === undefined ? {} : { idleMs: options.staffIdleMs }),
    });
    this.repeatReads = new RepeatReadFilter<ScanResult>({
      windowMs: options.repeatReadWindowMs ?? DEFAULT_REPEAT_READ_WINDOW_MS,
      now: this.now,
      onScreenMs: (result) => (result.type === 'verdict' ? VERDICT_ON_SCREEN_MS[result.verdict.kind] : 0),
    });
    const clientOptions: IssuerClientOptions = { now: this.now };
    if (options.fetch) clientOptions.fetch = options.fetch;
    if (options.dispatcher) clientOptions.dispatcher = options.dispatcher;
    this.client = new IssuerClient(clientOptions);
    this.discovery = new DiscoveryCache({
      store: this.store,
      client: this.client,
      now: this.now,
      ...(options.discoveryMaxAgeMs === undefined ? {} : { maxAgeMs: options.discoveryMaxAgeMs }),
      ...(options.discoveryMinRefetchIntervalMs === undefined ? {} : { minRefetchIntervalMs: options.discoveryMinRefetchIntervalMs }),
    });
    this.store.identity(); // scanner_id is generated on first start, not at first enrollment
    // A pinned self-signed issuer stays pinned across restarts (docs/protocol.md "Self-signed issuers").
    const enrollment = this.store.getEnrollment();
    if (enrollment?.tls_cert_sha256) this.client.pinCertificate(enrollment.iss, enrollment.tls_cert_sha256);
    // Scans left in the queue by a previous run go out as soon as possible.
    if (this.store.pendingCount() > 0) this.drains.soon();
    this.door = new DoorOperations({
      store: this.store,
      client: this.client,
      now: this.now,
      annulWindowMs: options.annulWindowMs ?? DEFAULT_ANNUL_WINDOW_MS,
    });
    const heartbeatMs = options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
    if (heartbeatMs > 0) {
      this.heartbeatTimer = setInterval(() => void this.heartbeat(), heartbeatMs);
      this.heartbeatTimer.unref?.();
    }
    const revocationSyncMs = options.revocationSyncIntervalMs ?? REVOCATION_SYNC_INTERVAL_MS;
    this.revocations = new RevocationSync({
      store: this.store,
      client: this.client,
      now: this.now,
      // A zero period (no timer) still makes a successful call sync when the last sync is a minute old.
      syncIntervalMs: revocationSyncMs > 0 ? revocationSyncMs : REVOCATION_SYNC_INTERVAL_MS,
      maxAgeMs: options.revocationMaxAgeMs ?? DEFAULT_REVOCATION_MAX_AGE_MS,
    });
    if (revocationSyncMs > 0) {
      this.revocationTimer = setInterval(() => void this.syncRevocations(), revocationSyncMs);
      this.revocationTimer.unref?.();
    }
    if (enrollment && options.lan) this.inBackground(this.joinLan());
  }

  // --- the revocation list (docs/kiosk.md "Revocation list") ----------------

  /**
   * One sync of the revocation list now (also what the timer runs every minute). Single-flight; nothing when
   * not enrolled, not authorised, or the issuer has no revocation endpoint. Never throws.
   */
  async syncRevocations(): Promise<void> {
    try {
      if (this.closed) return;
      const enrollment = this.store.getEnrollment();
      if (!enrollment || !this.authorised) return;
      const document = this.discovery.cached(enrollment.iss);
      if (!document || revocationsUrlOf(document) === null) return;
      const lookup = await this.loadApiKey(enrollment);
      if (!('key' in lookup) || !lookup.key || this.closed) return;
      const outcome = await this.revocations.sync(enrollment, document, lookup.key, this.interactiveTimeoutMs());
      if (this.closed) return;
      if (outcome.kind === 'failed') {
        this.log(`Revocation list sync failed: ${outcome.call.kind}.`);
        // As for the heartbeat: an answer says the issuer is there, no answer says nothing to the door.
        if (outcome.call.kind === 'unauthorized' || outcome.call.kind === 'rejected' || outcome.call.kind === 'rate_limited')
          this.noteConnection(outcome.call);
      } else if (outcome.kind === 'synced') {
        this.noteConnection({ kind: 'answered' });
        if (outcome.added > 0) this.log(`Revocation list: ${outcome.added} new revoked ticket(s).`);
      }
      this.changed();
    } catch (error) {
      this.log(`Revocation list sync failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** After a successful call to the issuer: sync the revocation list when it is behind (last sync over a minute old). */
  private syncRevocationsIfBehind(): void {
    const enrollment = this.store.getEnrollment();
    if (!enrollment || this.closed || !this.revocations.behind(enrollment)) return;
    this.inBackground(this.syncRevocations());
  }

  // --- kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN") ---------------

  /** Joins the event's LAN with its key from the keyring; without one (an older issuer), leaves it. */
  private async joinLan(): Promise<void> {
    const lan = this.options.lan;
    const enrollment = this.store.getEnrollment();
    if (!lan || !enrollment || this.closed) return;
    let key: string | null = null;
    try {
      key = (await this.options.apiKeys.loadLanKey?.(enrollment.iss)) ?? null;
    } catch (error) {
      this.log(`LAN warnings off: the LAN key could not be read (${error instanceof Error ? error.message : 'the secret store failed'}).`);
    }
    if (this.closed) return;
    if (key === null) {
      lan.leave();
      this.log('LAN warnings off: no LAN key for this event (the issuer gives none; re-enroll after updating it).');
      return;
    }
    lan.join(
      { eid: enrollment.eid, scannerId: this.store.identity().scanner_id, gate: enrollment.gate_id, key: Buffer.from(key, 'base64url') },
      (since, limit) =>
        this.store.admissionsSince(since, limit).map((row) => ({
          tid: row.tid,
          admitted_at: row.admitted_at,
          gate: enrollment.gate_id,
          offline: row.admitted_offline === 1,
        })),
      (since, limit) =>
        this.store
          .annulmentsSince(since, limit)
          .map((row) => ({ tid: row.tid, admitted_at: row.annulled_at, gate: enrollment.gate_id, offline: false })),
    );
  }

  /**
   * The issuer confirmed an annulment this kiosk sent (at the door, or later from the queue): its LAN peers forget
   * the undone admission (docs/kiosk.md "Kiosks on one LAN"), as this kiosk does once the issuer confirmed it.
   */
  private tellPeersAnnulled(tid: string, annulledAt: string): void {
    if (!this.options.lan) return;
    this.options.lan.publishAnnulment({ tid, admitted_at: annulledAt, gate: this.store.getEnrollment()?.gate_id ?? null, offline: false });
  }

  /** A LAN peer's admission of the ticket: consulted offline only (online the issuer decides), never on a re-entry event. */
  private peerAdmission(enrollment: Enrollment, tid: string): PeerAdmission | undefined {
    if (!this.options.lan || this.reentry(enrollment)) return undefined;
    return this.options.lan.admissionOf(tid);
  }

  // --- KioskApi -------------------------------------------------------------

  /** A read from the window's keyboard wedge (the page's calls). */
  scan(text: string, read?: ReadDetails): Promise<ScanResult> {
    return this.scanFrom('window', text, read);
  }

  /**
   * One read from any input path. A read repeating a recent one is the same
   * scan and runs nothing (repeat-reads.ts); a keyboard-mode scanner's
   * keystroke copy shares its HID read's answer. Reads through a calibrated
   * path are translated first, so both copies of a scan compare equal.
   */
  scanFrom(origin: ScanOrigin, raw: string, read?: ReadDetails, symbologyId?: string | null, device?: ScannerDevice): Promise<ScanResult> {
    return this.readScan(origin, raw, read, symbologyId, device).catch((error: unknown) => {
      if (!isStorageFault(error)) throw error;
      return this.storageFault(error);
    });
  }

  /**
   * The store said its file is damaged (docs/kiosk.md "Storage integrity"):
   * no verdict can be recorded, so the door says so and IT is called, instead
   * of "scan again" for everyone. A restart recovers what can be read.
   */
  private storageFault(error: unknown): ScanResult {
    const message = `Kiosk storage fault (${error instanceof Error ? error.message : String(error)}): call IT. Restarting the kiosk sets the damaged file aside and recovers its queued scans.`;
    if (this.storage?.state !== 'fault') this.log(message);
    this.storage = { state: 'fault', message, damaged_file: null };
    this.changed();
    return { type: 'storage_fault', message };
  }

  private readScan(
    origin: ScanOrigin,
    raw: string,
    read?: ReadDetails,
    symbologyId?: string | null,
    device?: ScannerDevice,
  ): Promise<ScanResult> {
    // Each read of the calibration code calibrates its own path, keystroke echoes too: a
    // keyboard-mode scanner read over HID is learned on both of its paths at once.
    const calibration = findCalibrationCode(raw);
    if (calibration) return this.inTurn(() => this.calibrate(origin, calibration, read, symbologyId, device));
    const text = this.translated(origin, raw);
    // docs/kiosk.md "Several scanners": the device's lane; the window's lane for the window and unmapped scanners.
    const lane = this.lanes ? laneFor(this.lanes, device) : null;
    return this.repeatReads.read(
      origin,
      text,
      () => this.inTurn(() => this.scanNow(text, lane)),
      (repeat) => repeat.first.then((first) => this.noteRepeatRead(origin, first, repeat)),
    );
  }

  resetCalibration(): Promise<KioskState | StaffLocked> {
    return this.guarded('resetCalibration', () => {
      this.store.clearCalibrations();
      this.calibrations = {};
      this.log('Scanner calibration reset: reads are taken as they arrive.');
      this.changed();
      return this.getState();
    });
  }

  async confirmReEnroll(): Promise<ScanResult | StaffLocked> {
    if (!this.pendingSetup) return { type: 'nothing_to_confirm' };
    return this.guarded('confirmReEnroll', () => {
      const setup = this.pendingSetup;
      if (!setup) return { type: 'nothing_to_confirm' } as const;
      this.pendingSetup = null;
      return this.performEnrollment(setup);
    });
  }

  async cancelReEnroll(): Promise<KioskState> {
    this.pendingSetup = null;
    this.changed();
    return this.getState();
  }

  lookupStatus(codeOrTid: string): Promise<StatusLookupResult | StaffLocked> {
    return this.guarded('lookupStatus', () => this.lookUp(codeOrTid));
  }

  private async lookUp(codeOrTid: string): Promise<StatusLookupResult> {
    const enrollment = this.store.getEnrollment();
    if (!enrollment) return { type: 'not_enrolled', message: NOT_ENROLLED };
    // A scanner may scan into the lookup field: its code is translated as a window read would be.
    // Typed ticket IDs are not (a person's keyboard types what it shows).
    const typed = codeOrTid.trim();
    const translated = this.translated('window', typed);
    const tid = tidFromInput(typed) ?? (translated.startsWith(TICKET_CODE_START) ? tidFromInput(translated) : null);
    if (tid === null) return { type: 'not_a_ticket' };
    const document = await this.documentFor(enrollment);
    const lookup = await this.loadApiKey(enrollment);
    if ('unavailable' in lookup) return { type: 'unavailable', message: lookup.unavailable };
    const apiKey = lookup.key;
    if (!document || !apiKey) return { type: 'unavailable', message: 'the issuer has not been reached yet' };
    const call = await this.client.status(document.endpoints.status, apiKey, tid, { timeoutMs: this.interactiveTimeoutMs() });
    this.noteConnection(call);
    switch (call.kind) {
      case 'answered':
        return { type: 'status', status: call.status };
      case 'not_found':
        return { type: 'not_found' };
      case 'unauthorized':
        return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
      case 'rate_limited':
        return { type: 'unavailable', message: 'the issuer asks to slow down; try again shortly' };
      case 'unreachable':
        return { type: 'unavailable', message: `the issuer is unreachable (${call.detail})` };
      case 'server_error':
      case 'rejected':
        return { type: 'unavailable', message: `the issuer could not answer (HTTP ${call.status})` };
    }
  }

  async getState(): Promise<KioskState> {
    return this.snapshot();
  }

  // --- door operations (docs/kiosk.md "Direction", "Annul at the door") -----

  /** Makes this kiosk an entry or an exit gate. Staff only; the issuer hears it with the next heartbeat, sent at once. */
  setDirection(direction: GateDirection): Promise<KioskState | StaffLocked> {
    return this.guarded('setDirection', async () => {
      const enrollment = this.store.getEnrollment();
      if (enrollment && enrollment.direction !== direction) {
        this.store.saveEnrollment({ ...enrollment, direction });
        this.log(`Gate direction changed to ${direction} (staff).`);
        this.inBackground(this.heartbeat());
      }
      this.changed();
      return this.getState();
    });
  }

  /**
   * Undoes a recent check-in (docs/kiosk.md "Annul at the door"). Staff only,
   * offered while the issuer gives this scanner the annul right. Queued like
   * any scan: committed with its idempotency key before it is sent, sent again
   * from the queue when the issuer does not answer now.
   */
  annul(tid: string, reason: string): Promise<AnnulResult | StaffLocked> {
    return this.guarded('annul', () => this.inTurn(() => this.annulNow(tid, reason)));
  }

  private async annulNow(tid: string, reason: string): Promise<AnnulResult> {
    const enrollment = this.store.getEnrollment();
    if (!enrollment) return { type: 'not_enrolled', message: NOT_ENROLLED };
    if (!this.door.canAnnul(enrollment)) return { type: 'not_allowed', message: ANNUL_NOT_ALLOWED_MESSAGE };
    const windowMs = this.options.annulWindowMs ?? DEFAULT_ANNUL_WINDOW_MS;
    const document = await this.documentFor(enrollment);
    const lookup = this.authorised ? await this.loadApiKey(enrollment) : { key: null };
    const apiKey = 'key' in lookup ? lookup.key : null;
    // The check-in to undo: this kiosk's own, else the issuer's record of it (a lookup's ticket).
    let checkedInAt = this.store.lastAdmissionAt(tid) ?? null;
    if (checkedInAt === null) {
      if (!document || !apiKey) return { type: 'unavailable', message: 'the issuer must be reached to annul a check-in made elsewhere' };
      const status = await this.client.status(document.endpoints.status, apiKey, tid, { timeoutMs: this.interactiveTimeoutMs() });
      this.noteConnection(status);
      if (status.kind === 'not_found') return { type: 'not_checked_in', tid };
      if (status.kind !== 'answered') return { type: 'unavailable', message: 'the issuer could not say when the ticket was checked in' };
      if (!status.status.checked_in_at) return { type: 'not_checked_in', tid };
      checkedInAt = status.status.checked_in_at;
    }
    if (this.now() - Date.parse(checkedInAt) > windowMs) return { type: 'too_late', checked_in_at: checkedInAt, window_ms: windowMs };
    const admitting = this.store.admittingScan(tid);
    const scan = this.store.insertScan({
      code: admitting?.code ?? tid,
      iss: enrollment.iss,
      tid,
      eid: admitting?.eid ?? enrollment.eid,
      gate_id: enrollment.gate_id,
      scanner_id: this.store.identity().scanner_id,
      scanned_at: new Date(this.now()).toISOString(),
      signature_status: 'valid',
      queue_state: document && apiKey ? 'sending' : 'pending',
      action: 'annul',
      reason,
      ticket_type: admitting?.ticket_type ?? null,
    });
    this.log(`Annulment of ticket ${tid} by staff, queued with its key.`);
    if (!document || !apiKey) {
      this.drains.firstRetryUnlessScheduled();
      this.changed();
      return { type: 'queued_offline', tid };
    }
    const call = await this.client.checkIn(document.endpoints.check_in, apiKey, checkInRequestFor(scan), { timeoutMs: this.budgetMs });
    this.noteConnection(call);
    const answeredAt = new Date(this.now()).toISOString();
    const answer = storedAnswerOf(call, answeredAt);
    if (answer !== null) this.store.recordAnswer(scan.idempotency_key, answer);
    this.changed();
    switch (call.kind) {
      case 'answered':
        if (call.response.status === 'annulled') {
          this.tellPeersAnnulled(tid, answeredAt);
          return { type: 'annulled', tid };
        }
        if (call.response.status === 'not_checked_in') return { type: 'not_checked_in', tid };
        return { type: 'unavailable', message: `the issuer answered ${call.response.status}` };
      case 'action_not_allowed':
        return { type: 'not_allowed', message: ANNUL_NOT_ALLOWED_MESSAGE };
      case 'not_found':
        return { type: 'not_checked_in', tid };
      case 'signature_reported':
      case 'rejected':
        return {
          type: 'unavailable',
          message: `the issuer refused the annulment (${call.kind === 'rejected' ? (call.code ?? call.status) : call.kind})`,
        };
      case 'unauthorized':
        this.store.setQueueState(scan.idempotency_key, 'held');
        this.authorised = false;
        return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
      case 'unreachable':
      case 'server_error':
      case 'rate_limited':
        this.store.recordRetry(
          scan.idempotency_key,
          this.drains.firstRetryAt(call.kind === 'rate_limited' ? call.retryAfterMs : undefined),
          call.kind,
        );
        this.drains.firstRetryUnlessScheduled();
        return { type: 'queued_offline', tid };
    }
  }

  /**
   * One scanner heartbeat now (docs/protocol.md "Scanner heartbeat"): also
   * what the timer runs every minute. Single-flight; nothing when not
   * enrolled, not authorised, or the issuer has no heartbeat endpoint.
   */
  heartbeat(afterDrain = false): Promise<void> {
    if (this.heartbeatRunning) {
      // One in flight may have read the log head before the drain's records: another follows it.
      return afterDrain ? this.heartbeatRunning.then(() => this.heartbeat(true)) : this.heartbeatRunning;
    }
    const run = this.sendHeartbeat(afterDrain)
      .catch((error: unknown) => this.log(`Heartbeat failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.heartbeatRunning = null;
      });
    this.heartbeatRunning = run;
    return run;
  }

  private async sendHeartbeat(afterDrain = false): Promise<void> {
    if (this.closed) return;
    const enrollment = this.store.getEnrollment();
    if (!enrollment || !this.authorised) return;
    const document = this.discovery.cached(enrollment.iss);
    if (!document || heartbeatUrlOf(document) === null) return;
    const lookup = await this.loadApiKey(enrollment);
    if (!('key' in lookup) || !lookup.key || this.closed) return;
    const call = await this.door.heartbeat(
      enrollment,
      document,
      lookup.key,
      this.store.identity().scanner_id,
      this.store.pendingCount(),
      this.interactiveTimeoutMs(),
    );
    if (!call || this.closed) return;
    // An answer says the issuer is there; no answer says nothing to the door: a background call that
    // failed must not make the next scans skip the issuer (the door's own requests decide that).
    if (call.kind !== 'unreachable' && call.kind !== 'server_error') this.noteConnection(call);
    // After a drain pass the schedule already knows what is left (and a heartbeat must not start another pass).
    if (!afterDrain && call.kind === 'answered' && this.store.pendingCount() > 0) this.drains.soon();
    if (call.kind === 'answered') this.syncRevocationsIfBehind();
    this.changed();
  }

  async setScannerName(name: string): Promise<KioskState> {
    this.store.setScannerName(name);
    this.changed();
    return this.getState();
  }

  onStateChange(listener: (state: KioskState) => void): () => void {
    this.events.on('state', listener);
    return () => this.events.off('state', listener);
  }

  async unlockStaff(pin: string): Promise<StaffUnlockResult> {
    const result = await this.staff.unlock(pin);
    this.changed();
    return result;
  }

  /** The kiosk's check of its own audit log (docs/kiosk.md "The kiosk's audit log"). Staff only. */
  verifyLog(): Promise<LogCheckResult | StaffLocked> {
    return this.guarded('verifyLog', () => Promise.resolve(this.store.verifyLog()));
  }

  async lockStaff(): Promise<KioskState> {
    this.staff.lock();
    this.changed();
    return this.getState();
  }

  async setStaffPin(pin: string): Promise<SetStaffPinResult> {
    const result = await this.staff.setPin(pin);
    this.changed();
    return result;
  }

  setLanguage(primary: LanguageCode, secondary: LanguageCode | null): Promise<SetLanguageResult> {
    if (!LANGUAGE_CODES.includes(primary) || (secondary !== null && !LANGUAGE_CODES.includes(secondary))) {
      return Promise.reject(new Error('not a language this kiosk speaks'));
    }
    return this.guarded('setLanguage', () => {
      const language: KioskLanguage = { primary, secondary: secondary === primary ? null : secondary };
      this.store.saveLanguage(language);
      this.log(`Language set: ${language.primary}${language.secondary ? ` and ${language.secondary}` : ''}.`);
      this.changed();
      return { type: 'language_set', language } as const;
    });
  }

  leaveKioskMode(): Promise<LeaveKioskModeResult> {
    return this.guarded('leaveKioskMode', async () => {
      const exit = this.kioskModeExit;
      if (!exit) return { type: 'not_in_kiosk_mode', message: 'this kiosk is not running in kiosk mode' } as const;
      this.log('Leaving kiosk mode (staff).');
      await exit();
      return { type: 'left_kiosk_mode' } as const;
    });
  }

  // --- the staff guard (docs/kiosk.md "Staff PIN", docs/protocol.md "Roles and rights") ---

  /**
   * Runs a page call as the access table (protocol/access.ts) allows: a call
   * anyone at the door may make runs at once; a staff call runs only while
   * staff functions are unlocked (or no PIN is set), and each run starts the
   * unlock's idle time again. Locked, it answers StaffLocked and `work` does
   * not run. A new staff call is a row in the table and
   * `return this.guarded('annul', () => …)`, with `| StaffLocked` in its
   * answer type; the row's label names it in the log.
   */
  async guarded<T>(call: KioskCall, work: () => T | Promise<T>): Promise<T | StaffLocked> {
    const locked = this.requireStaff(call);
    if (locked) return locked;
    return work();
  }

  /**
   * The same guard for calls outside the core (the on-site issuer's page
   * calls, closing the kiosk window): null when `call` may run now (for a
   * staff call the idle time starts again), else the StaffLocked answer to
   * give instead.
   */
  requireStaff(call: KioskCall): StaffLocked | null {
    if (!needsStaff(call)) return null;
    const locked = this.staff.check(callLabel(call));
    if (locked) this.changed();
    return locked;
  }

  // --- host controls (not part of the renderer's API) -------------------

  /**
   * How the host leaves kiosk mode (the Electron window's full screen and
   * kiosk flag), offered to staff as "Leave kiosk mode"; null when it has none.
   */
  setKioskModeExit(exit: (() => void | Promise<void>) | null): void {
    this.kioskModeExit = exit;
    this.changed();
  }

  /** The host's HID scanner status, shown on the Setup and Ready screens (e.g. a scanner in a mode the kiosk cannot read). */
  setHidScannerStatus(status: HidScannerStatus | null): void {
    this.hidScanner = status === null ? null : { state: status.state, reason: status.reason ?? null, message: status.message };
    this.changed();
  }

  /** The HID scanners open now (the runtime's scanner manager), to tell which lane's scanner is missing. */
  setScannerDevices(devices: readonly ScannerDevice[]): void {
    const before = this.scannerDevices;
    this.scannerDevices = [...devices];
    for (const lane of this.lanes?.lanes ?? []) {
      if (!lane.scanner) continue;
      const was = before.some((device) => matches(lane.scanner!, device));
      const is = devices.some((device) => matches(lane.scanner!, device));
      if (was && !is) this.log(`Lane ${lane.label}: its scanner is missing; it keeps its lane when plugged in again.`);
      if (!was && is) this.log(`Lane ${lane.label}: its scanner is connected.`);
    }
    this.changed();
  }

  /**
   * docs/kiosk.md "Several scanners": staff map lanes by scanning the
   * calibration code with each lane's scanner in turn, cancel a mapping, or
   * forget the lanes. Lanes from the configuration file are not changed here.
   */
  configureLanes(request: LanesRequest): Promise<KioskState | StaffLocked> {
    return this.guarded('configureLanes', () => {
      if (this.lanesSource === 'file') {
        this.log('Lanes come from the configuration file (kiosk-config.json): change them there.');
        return this.getState();
      }
      if (request.action === 'map') {
        this.laneMapping = new LaneMapping(request.lanes);
        this.log(`Lane mapping started: ${request.lanes.length} lanes; scan the calibration code with each lane's scanner.`);
      } else if (request.action === 'cancel') {
        this.laneMapping = null;
      } else {
        this.laneMapping = null;
        this.lanes = null;
        this.store.saveLanes(null);
        this.log('Lanes forgotten: every scanner serves the whole kiosk again.');
      }
      this.changed();
      return this.getState();
    });
  }

  /** A calibration read during a lane mapping: its device gets the lane whose turn it is; the last one saves the lanes. */
  private mapLane(device: ScannerDevice | undefined): void {
    const mapping = this.laneMapping;
    if (!mapping) return;
    const done = mapping.read(device);
    if (!done) return;
    this.store.saveLanes(done);
    this.lanes = done;
    this.laneMapping = null;
    this.log(`Lanes mapped: ${done.lanes.map((lane) => `${lane.label} (${lane.direction ?? 'kiosk direction'})`).join(', ')}.`);
  }

  /** The read log, newest first (repeat reads, calibrations). */
  readLog(limit?: number): ReturnType<LocalStore['readLog']> {
    return this.store.readLog(limit);
  }

  /** One drain pass now (also what the background timer runs). Single-flight. */
  drain(): Promise<DrainReport | null> {
    return this.drains.runNow();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.staff.close();
    clearInterval(this.heartbeatTimer);
    clearInterval(this.revocationTimer);
    await this.heartbeatRunning;
    this.drainAbort.abort();
    await this.drains.close();
    await this.scanChain;
    await Promise.allSettled([...this.background]);
    await this.client.close();
    this.events.removeAllListeners();
    this.store.close();
  }

  // --- scanning -------------------------------------------------------------

  /** Scans run one at a time, so "seen before on this kiosk" cannot race. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.scanChain.then(work);
    this.scanChain = run.catch(() => undefined);
    return run;
  }

  private translated(origin: ScanOrigin, text: string): string {
    const translation = this.calibrations[origin]?.translation;
    return translation ? translate(text, translation) : text;
  }

  /** docs/kiosk.md "Double reads": logged, marked on the verdict still shown, nothing else. */
  private noteRepeatRead(origin: ScanOrigin, first: ScanResult, outcome: RepeatRead<ScanResult>): ScanResult {
    const verdict = first.type === 'verdict' ? first.verdict : null;
    const tid = verdict?.ticket?.tid ?? null;
    const detail = `read again from ${origin} ${outcome.sinceFirstMs} ms after the first read (from ${outcome.firstOrigin}; ${outcome.reads} reads): the same scan, no new check-in`;
    this.store.logRead({ at: new Date(this.now()).toISOString(), kind: 'repeat_read', origin, tid, detail });
    this.log(`Repeat read${tid ? ` of ticket ${tid}` : ''}: ${detail}.`);
    if (verdict) {
      this.readAgain = { decided_at: verdict.decided_at, tid, reads: outcome.reads };
      this.changed();
    }
    return { type: 'repeat_read', reads: outcome.reads };
  }

  /** docs/kiosk.md "Calibration": diagnose, keep what was learned for this input path, explain it. */
  private async calibrate(
    origin: ScanOrigin,
    match: CalibrationMatch,
    read: ReadDetails | undefined,
    symbologyId: string | null | undefined,
    device?: ScannerDevice,
  ): Promise<ScanResult> {
    this.mapLane(device);
    const result: CalibrationResult = diagnose({ origin, match, read, symbologyId, atMs: this.now() });
    const { diagnosis } = result;
    const detail = `input ${origin}, layout ${diagnosis.layout}, translation ${diagnosis.translation}, terminator ${diagnosis.terminator ?? 'unknown'}, ${diagnosis.characters} characters in ${diagnosis.ms_per_code ?? '?'} ms`;
    this.store.atomically(() => {
      this.store.saveCalibration(origin, result);
      this.store.logRead({ at: diagnosis.calibrated_at, kind: 'calibration', origin, tid: null, detail });
    });
    this.calibrations = { ...this.calibrations, [origin]: result };
    this.log(`Scanner calibrated: ${detail}.`);
    this.changed();
    return { type: 'calibrated', diagnosis };
  }

  /** One scan on its lane (null: no lanes): a lane with a direction of its own decides entries or exits by it. */
  private async scanNow(raw: string, lane: Lane | null = null): Promise<ScanResult> {
    this.scanLane = lane;
    try {
      return await this.scanNowOnLane(raw, lane);
    } finally {
      this.scanLane = null;
    }
  }

  private async scanNowOnLane(raw: string, lane: Lane | null): Promise<ScanResult> {
    // Keyboard-wedge scanners end a code with Enter; some add a tab or spaces.
    const text = raw.trim();
    if (ANY_SETUP_CODE.test(text)) return this.handleSetup(text);
    const stored = this.store.getEnrollment();
    const enrollment = stored && lane?.direction ? { ...stored, direction: lane.direction } : stored;
    if (!enrollment) return { type: 'not_enrolled', message: NOT_ENROLLED };
    // The setup code required a staff PIN: the door opens once one is set (docs/kiosk.md "Staff PIN").
    if (this.staff.pinNeeded()) return { type: 'staff_pin_needed', message: STAFF_PIN_NEEDED };
    // Spec "Authentication" 5: the key ends at expires_at; past it the door must not admit, even offline.
    if (Date.parse(enrollment.key_expires_at) <= this.now()) {
      this.authorised = false;
      this.changed();
      return { type: 'scanner_unauthorized', message: SCANNER_KEY_EXPIRED_MESSAGE };
    }

    let document = this.discovery.cached(enrollment.iss);
    if (!this.discovery.isFresh(enrollment.iss)) this.inBackground(this.refreshInBackground(enrollment.iss));
    let evaluation = this.evaluate(text, enrollment, document);
    if (!evaluation.pass && evaluation.check === 'key_known') {
      // Spec "Versioning" 5: an unknown kid may be a freshly rotated key. One refetch, rate-limited.
      const refetch = this.discovery.refreshLimited(enrollment.iss, this.budgetMs);
      const result = refetch ? await refetch : null;
      if (result) this.noteRefresh(result);
      if (result?.ok) {
        document = result.document;
        evaluation = this.evaluate(text, enrollment, document);
      }
    }
    if (!evaluation.pass) {
      if (evaluation.check === 'signature' && evaluation.claimed?.eid === enrollment.eid) {
        this.reportInvalidSignature(text, evaluation.claimed, enrollment, evaluation.verdict);
      }
      return this.show(evaluation.verdict);
    }
    return this.checkIn(text, evaluation.ticket.payload, enrollment, document!);
  }

  private evaluate(text: string, enrollment: Enrollment, document: DiscoveryDocument | null): OfflineEvaluation {
    return evaluateTicketOffline(text, {
      issuer: enrollment.iss,
      eid: enrollment.eid,
      keys: document?.keys ?? [],
      nowMs: this.now(),
      // A re-entry event: the issuer knows of exits at other gates, this kiosk does not; "seen here" is
      // then checked only when the issuer cannot answer (offlineOutcome).
      admittedHereAt: (tid) => (this.reentry(enrollment) ? undefined : this.store.firstAdmissionAt(tid)),
      // Known offline: what the LAN's kiosks admitted counts. Otherwise the issuer is asked first, and
      // offlineOutcome consults the peers only if it does not answer.
      admittedByPeerAt: (tid) => (this.connection === 'offline' ? this.peerAdmission(enrollment, tid) : undefined),
      // Known offline: the revocation list of the last sync. Online the issuer decides (offlineOutcome consults
      // the list if it does not answer).
      ...(this.connection === 'offline' ? { revocations: this.revocations.offlineList(enrollment) } : {}),
      // The check-in rules likewise (docs/kiosk.md "Check-in rules offline"): online the issuer judges by its
      // rules of this moment; known offline, the last heartbeat's rules judge here, and offlineOutcome applies
      // them when the issuer does not answer.
      ...(this.connection === 'offline' ? { checkInRules: this.door.rulesContext(enrollment) } : {}),
      direction: enrollment.direction,
      verify: verifyEd25519Node,
    });
  }

  /**
   * docs/protocol.md "Reporting a failed signature": queued like a check-in
   * (so it survives being offline) with signature_status "invalid". The verdict
   * is already decided locally; the issuer's 400 only confirms it was logged.
   */
  private reportInvalidSignature(code: string, claimed: TicketPayload, enrollment: Enrollment, verdict: Verdict): void {
    this.store.insertScan({
      ...this.scanAtThisDoor(code, claimed, enrollment, new Date(this.now()).toISOString()),
      signature_status: 'invalid',
      queue_state: 'pending',
      verdict,
    });
    this.drains.soon();
  }

  /** What every queued scan records of itself: the code, its ticket, this door, and when (the check-in request is made from it). */
  private scanAtThisDoor(
    code: string,
    ticket: Pick<TicketPayload, 'tid' | 'eid'>,
    enrollment: Enrollment,
    scannedAt: string,
  ): Omit<NewScan, 'signature_status' | 'queue_state' | 'verdict'> {
    return {
      code,
      iss: enrollment.iss,
      tid: ticket.tid,
      eid: ticket.eid,
      gate_id: enrollment.gate_id,
      scanner_id: this.store.identity().scanner_id,
      scanned_at: scannedAt,
    };
  }

  private async checkIn(code: string, payload: TicketPayload, enrollment: Enrollment, document: DiscoveryDocument): Promise<ScanResult> {
    const scannedAt = new Date(this.now()).toISOString();
    const action = enrollment.direction;
    // Known offline and the offline rules would let the person through (an exit; an entry the
    // exposure policy admits): do not make the queue wait a full budget per person. A refusal is
    // worth one more try of the issuer.
    const knownOffline = this.connection === 'offline' ? this.offlineOutcome(payload, enrollment, scannedAt) : null;
    const skipOnline = knownOffline?.queueState === 'pending';
    // The key is read only when a request may go out: each read is a keyring round trip (D-Bus on
    // Linux, milliseconds, tens under load) that a known-offline scan does not need. Not cached:
    // between requests the key stays in the keyring only, with no copy to invalidate.
    const lookup = this.authorised && !skipOnline ? await this.loadApiKey(enrollment) : null;
    // A keyring that fails right now (locked, D-Bus restarting) is not a lost authorisation: the offline path.
    const keyringDown = lookup !== null && 'unavailable' in lookup;
    const apiKey = lookup !== null && 'key' in lookup ? lookup.key : null;
    // A held scan of this ticket (strict offline refusal, or lost authorisation) is resent as it was:
    // same body, same idempotency key, so an earlier request that did land is answered consistently.
    const heldScan = this.store.heldScanFor(payload.tid);
    // Only a held scan of the same action (a kiosk turned from entry to exit holds on to its entries).
    const held = heldScan && (heldScan.action ?? 'entry') === action ? heldScan : null;
    const newScan = (queueState: NewScan['queue_state'], sentAsOffline = false): StoredScan =>
      this.store.insertScan({
        ...this.scanAtThisDoor(code, payload, enrollment, scannedAt),
        signature_status: 'valid',
        queue_state: queueState,
        action,
        ticket_type: payload.tt ?? null,
        sent_as_offline: sentAsOffline,
      });

    if (!apiKey) {
      // No request goes out (known offline, lost authorisation, no key, or the keyring failing for
      // now): the outcome is known already, so the scan is committed once, with its verdict (one
      // transaction, one fsync instead of two), still before anything is shown.
      if (!this.authorised || (!skipOnline && !keyringDown)) {
        if (!held) newScan('held'); // kept, not sent: rescanning after a re-enrollment sends it, same key
        return this.unauthorised();
      }
      // Decided before any request went out: the request says so (`admitted_offline`, docs/protocol.md "Door operations").
      // Known offline: decided above already, at the scan's time.
      const { verdict, queueState } = knownOffline ?? this.offlineOutcome(payload, enrollment, new Date(this.now()).toISOString());
      this.store.atomically(() =>
        this.store.decideScan((held ?? newScan(queueState, verdict.kind !== 'refuse')).idempotency_key, verdict, queueState),
      );
      if (queueState === 'pending') this.drains.firstRetryUnlessScheduled();
      return this.show(verdict);
    }

    // A request goes out: the scan (with its idempotency key) is committed BEFORE it is sent, so a
    // crash after sending resends the same key (spec "Offline behaviour"; every acknowledged check-in survives a crash).
    let scan: StoredScan;
    if (held) {
      this.store.setQueueState(held.idempotency_key, 'sending');
      scan = held;
    } else {
      scan = newScan('sending');
    }
    const call = await this.client.checkIn(document.endpoints.check_in, apiKey, checkInRequestFor(scan), { timeoutMs: this.budgetMs });
    this.noteConnection(call);
    const decidedAt = new Date(this.now()).toISOString();

    if (call.kind === 'answered' || call.kind === 'not_found') {
      // The client let through only the statuses this action may be answered (issuer-client.ts): an entry's or an exit's.
      const verdict =
        call.kind === 'answered'
          ? verdictFromCheckIn(call.response as DoorScanResponse, payload, decidedAt)
          : unknownTicketVerdict(payload, decidedAt);
      this.store.atomically(() => {
        this.store.recordAnswer(scan.idempotency_key, storedAnswerOf(call, decidedAt)!);
        this.store.decideScan(scan.idempotency_key, verdict, 'done');
      });
      if (call.kind === 'answered' && this.door.noteOccupancy(enrollment, call.response.occupancy)) this.changed();
      // Revocations are final: a ticket the issuer says is revoked stays refused here offline too.
      if (call.kind === 'answered' && call.response.status === 'revoked') this.store.addRevoked(payload.tid);
      if (this.store.pendingCount() > 0) this.drains.soon(); // the issuer is back: flush the queue
      this.syncRevocationsIfBehind();
      return this.show(verdict);
    }
    if (call.kind === 'unauthorized') {
      this.store.setQueueState(scan.idempotency_key, 'held');
      return this.unauthorised();
    }

    // Offline path after trying: timeout, network error, 5xx, 429, or a final rejection. The request already
    // went out without `admitted_offline`, and a replay must be the same body: it is queued as it was.
    const final = call.kind === 'rejected' || call.kind === 'action_not_allowed';
    const offline = this.offlineOutcome(payload, enrollment, decidedAt);
    const verdict = offline.verdict;
    const queueState = final ? 'failed' : offline.queueState;
    this.store.atomically(() => {
      if (final) this.store.recordAnswer(scan.idempotency_key, storedAnswerOf(call, decidedAt)!);
      this.store.decideScan(scan.idempotency_key, verdict, queueState);
    });
    if (queueState === 'pending') {
      // Spec "Rate limiting" 4: a 429 at the door also delays the queue by its Retry-After.
      const retryAfterMs = call.kind === 'rate_limited' ? call.retryAfterMs : undefined;
      const due = this.drains.firstRetryAt(retryAfterMs);
      if (retryAfterMs !== undefined) {
        this.store.recordRetry(scan.idempotency_key, due, 'RATE_LIMITED');
        this.drains.holdUntil(due);
      }
      this.drains.atUnlessScheduled(due);
    }
    return this.show(verdict);
  }

  /**
   * What the door shows when the issuer cannot answer (docs/kiosk.md "Exit scans", "Offline exposure
   * policy"): an exit lets the person out; an entry is judged by the kiosk's own option and its
   * ticket type's policy (protocol/offline-exposure.ts). Let through: queued; refused: held.
   */
  private offlineOutcome(
    payload: TicketPayload,
    enrollment: Enrollment,
    decidedAt: string,
  ): { verdict: Verdict; queueState: 'pending' | 'held' } {
    if (enrollment.direction === 'exit') return { verdict: exitVerdict(payload, true, decidedAt), queueState: 'pending' };
    // The revocation list of the last sync (docs/kiosk.md "Revocation list"), as the offline check revoked_list.
    const list = this.revocations.offlineList(enrollment);
    if (list?.isRevoked(payload.tid)) {
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'revoked',
        decided_at: decidedAt,
        offline: true,
        decided_by: 'revoked_list',
        ticket: ticketFromPayload(payload),
        revocations_synced_at: list.syncedAt,
        detail: 'in the revocation list of the last sync',
      };
      return { verdict, queueState: 'held' };
    }
    // The check-in rules come before "already used", as at the issuer (protocol/verdict.ts OFFLINE_CHECKS).
    const rule = this.door.ruleRefusal(enrollment, payload);
    if (rule !== null) {
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'rule_refused',
        decided_at: decidedAt,
        offline: true,
        decided_by: 'rules',
        ticket: ticketFromPayload(payload),
        rule,
        detail: `check-in rule ${rule.rule} (${rule.name})`,
      };
      return { verdict, queueState: 'held' };
    }
    const admittedAt = this.reentry(enrollment) ? this.store.firstAdmissionAt(payload.tid) : undefined;
    if (admittedAt !== undefined) {
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'already_used',
        decided_at: decidedAt,
        offline: true,
        decided_by: 'seen_here',
        ticket: ticketFromPayload(payload),
        first_used_at: admittedAt,
        detail: 'already admitted by this kiosk; exits at other gates are not known offline',
      };
      return { verdict, queueState: 'held' };
    }
    const peer = this.peerAdmission(enrollment, payload.tid);
    if (peer !== undefined) {
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'admitted_at_other_gate',
        decided_at: decidedAt,
        offline: true,
        decided_by: 'seen_by_peer',
        ticket: ticketFromPayload(payload),
        first_used_at: peer.admitted_at,
        first_used_gate: peer.gate,
        first_used_offline: peer.offline,
        detail: 'admitted by another kiosk on this LAN',
      };
      return { verdict, queueState: 'held' };
    }
    const decision = this.door.decideEntry(enrollment, payload, this.policy);
    if (decision.admit) return { verdict: offlineVerdict(payload, 'optimistic', decidedAt), queueState: 'pending' };
    return { verdict: exposureRefusal(decision, payload, decidedAt), queueState: 'held' };
  }

  /** The last heartbeat says the event lets people out and back in (docs/protocol.md "Per event: entry policy"). */
  private reentry(enrollment: Enrollment): boolean {
    return this.door.lastHeartbeat(enrollment)?.response.entry_policy === 'reentry';
  }

  private unauthorised(): ScanResult {
    this.authorised = false;
    this.changed();
    return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
  }

  private show(decided: Verdict): ScanResult {
    // docs/kiosk.md "Several scanners": the verdict names its lane, so the screen shows it in that lane's half.
    const verdict: Verdict = this.scanLane ? { ...decided, lane: this.scanLane.id } : decided;
    if (verdict.kind === 'admit' && verdict.ticket && this.options.lan) {
      // Every admission, online or not: a peer that goes offline later needs to know it too.
      const gate = this.store.getEnrollment()?.gate_id ?? null;
      this.options.lan.publish({ tid: verdict.ticket.tid, admitted_at: verdict.decided_at, gate, offline: verdict.offline });
    }
    this.lastVerdicts = [verdict, ...this.lastVerdicts].slice(0, LAST_VERDICTS);
    this.readAgain = null;
    this.changed();
    return { type: 'verdict', verdict };
  }

  // --- enrollment -----------------------------------------------------------

  private async handleSetup(text: string): Promise<ScanResult> {
    let setup: SetupPayload;
    try {
      setup = decodeSetupCode(text);
    } catch (error) {
      if (!(error instanceof QrCodeError)) throw error;
      if (!text.startsWith(SETUP_PREFIX))
        return { type: 'enroll_failed', code: 'unsupported_version', message: 'this setup code version is not supported' };
      return { type: 'enroll_failed', code: 'not_a_setup_code', message: 'this setup code is damaged' };
    }
    const problem = setupProblem(setup, this.now());
    if (problem) return { type: 'enroll_failed', ...problem };
    const current = this.store.getEnrollment();
    if (current) {
      // Never silently move a working door to another event: the operator confirms.
      this.pendingSetup = setup;
      this.changed();
      return {
        type: 'confirm_re_enroll',
        current: { issuer_name: current.issuer_name, event_name: current.event_name, gate_id: current.gate_id },
        proposed: summarize(setup),
        pending_scans: this.store.pendingCount(),
      };
    }
    return this.performEnrollment(setup);
  }

  private async performEnrollment(setup: SetupPayload): Promise<ScanResult> {
    const outcome = await enroll(setup, {
      store: this.store,
      apiKeys: this.options.apiKeys,
      discovery: this.discovery,
      client: this.client,
      now: this.now,
      platform: this.options.platform ?? defaultPlatform(),
      timeoutMs: this.interactiveTimeoutMs(),
    });
    if (!outcome.ok) {
      this.changed();
      return { type: 'enroll_failed', code: outcome.code, message: outcome.message };
    }
    if (setup.pin_required === true) this.store.requireStaffPin();
    this.authorised = true;
    this.connection = 'online';
    this.lastVerdicts = [];
    if (this.store.pendingCount() > 0) this.drains.soon();
    this.changed();
    this.inBackground(this.heartbeat()); // the event's door settings and this scanner's rights, at once
    this.inBackground(this.syncRevocations()); // the event's revocation list, at once
    if (this.options.lan) this.inBackground(this.joinLan()); // the new event's LAN key
    const e = outcome.enrollment;
    return { type: 'enrolled', issuer_name: e.issuer_name, event_name: e.event_name, event_date: e.event_date, gate_id: e.gate_id };
  }

  // --- discovery, connection and the drain ---------------------------------

  private async documentFor(enrollment: Enrollment): Promise<DiscoveryDocument | null> {
    const cached = this.discovery.cached(enrollment.iss);
    if (cached) return cached;
    const result = await this.discovery.refresh(enrollment.iss, this.interactiveTimeoutMs());
    return result.ok ? result.document : null;
  }

  private inBackground(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  private async refreshInBackground(iss: string): Promise<void> {
    const refresh = this.discovery.refreshLimited(iss, this.interactiveTimeoutMs());
    if (!refresh) return;
    const result = await refresh;
    if (!this.closed) this.noteRefresh(result);
    if (result.ok && !this.closed) await this.heartbeat(); // docs/protocol.md "Scanner heartbeat": after each discovery refresh
  }

  private noteRefresh(result: RefreshResult): void {
    this.noteConnection(result.ok ? { kind: 'answered' } : result.failure);
  }

  /** Any answer from the issuer means online; no answer (or a 5xx) means offline. */
  private noteConnection(call: { kind: string }): void {
    const before = this.connection;
    if (call.kind === 'unreachable' || call.kind === 'server_error') this.connection = 'offline';
    else this.connection = 'online';
    if (call.kind === 'unauthorized') this.authorised = false;
    if (before !== this.connection) this.changed();
  }

  /** One pass over the queue (drain-schedule.ts decides when), and what its outcome says about the issuer. */
  private async drainPass(): Promise<DrainReport | null> {
    if (this.closed) return null;
    const enrollment = this.store.getEnrollment();
    if (!enrollment || !this.authorised) return null;
    const document = this.discovery.cached(enrollment.iss);
    const lookup = await this.loadApiKey(enrollment);
    if ('unavailable' in lookup) {
      this.drains.later(); // the keyring may come back; the queue waits
      return null;
    }
    const apiKey = lookup.key;
    if (!document || !apiKey) return null;
    const report = await drainQueue({
      store: this.store,
      client: this.client,
      iss: enrollment.iss,
      checkInUrl: document.endpoints.check_in,
      apiKey,
      now: this.now,
      random: this.random,
      concurrency: this.options.drainConcurrency ?? DEFAULT_DRAIN_CONCURRENCY,
      timeoutMs: this.options.drainTimeoutMs ?? 10_000,
      backoff: this.backoff,
      signal: this.drainAbort.signal,
    });
    if (this.closed) return report;
    for (const scan of report.settled) {
      if (scan.action === 'annul' && scan.result_status === 'annulled') this.tellPeersAnnulled(scan.tid, scan.answered_at!);
    }
    if (report.stop === 'offline') this.connection = 'offline';
    else if (report.stop === 'unauthorized') this.authorised = false;
    else if (report.settled.length > 0 || report.stop === 'rate_limited' || report.stop === 'leaving_room') this.connection = 'online';
    this.drains.afterPass(report);
    this.changed();
    // Every drain pass is followed by a heartbeat, so the issuer hears the audit log's head with each sync.
    if (report.stop !== 'offline' && report.stop !== 'unauthorized') this.inBackground(this.heartbeat(true));
    if (report.settled.length > 0) this.syncRevocationsIfBehind();
    return report;
  }

  /** The enrollment's API key from the store; a store failure is reported by its (secret-free) message, never thrown. */
  private async loadApiKey(enrollment: Enrollment): Promise<{ key: string | null } | { unavailable: string }> {
    try {
      return { key: await this.options.apiKeys.loadApiKey(enrollment.iss) };
    } catch (error) {
      return { unavailable: error instanceof Error ? error.message : 'the secret store failed' };
    }
  }

  private interactiveTimeoutMs(): number {
    return this.options.interactiveTimeoutMs ?? 10_000;
  }

  // --- state ---------------------------------------------------------------

  private snapshot(): KioskState {
    try {
      this.lastSnapshot = this.readSnapshot();
      return this.lastSnapshot;
    } catch (error) {
      if (!isStorageFault(error) || this.lastSnapshot === null) throw error;
      if (this.storage?.state !== 'fault') this.storageFault(error);
      return { ...this.lastSnapshot, storage: this.storage };
    }
  }

  private readSnapshot(): KioskState {
    const enrollment = this.store.getEnrollment();
    const identity = this.store.identity();
    return {
      enrolled: enrollment !== null,
      authorised: this.authorised,
      scanner: { id: identity.scanner_id, name: identity.scanner_name },
      issuer: enrollment ? { iss: enrollment.iss, name: enrollment.issuer_name } : null,
      event: enrollment ? { eid: enrollment.eid, name: enrollment.event_name, date: enrollment.event_date } : null,
      gate_id: enrollment?.gate_id ?? null,
      api_key_id: enrollment?.api_key_id ?? null,
      key_expires_at: enrollment?.key_expires_at ?? null,
      connection: this.connection,
      offline_policy: this.policy,
      direction: enrollment?.direction ?? 'entry',
      ...this.door.view(enrollment),
      pending_scans: this.store.pendingCount(),
      last_verdicts: [...this.lastVerdicts],
      double_admissions: this.store.doubleAdmissions().map(({ idempotency_key: _key, ...view }) => view),
      revocations: this.revocations.view(enrollment),
      re_enroll_pending: this.pendingSetup ? summarize(this.pendingSetup) : null,
      read_again: this.readAgain,
      calibration: this.calibrationView(),
      hid_scanner: this.hidScanner,
      storage: this.storage,
      staff: this.staff.state(this.kioskModeExit !== null),
      language: this.language(),
      lanes: lanesView(this.lanes, this.lanesSource, enrollment?.direction ?? 'entry', this.scannerDevices, this.laneMapping),
    };
  }

  private language(): KioskLanguage {
    const stored = this.store.getLanguage();
    if (!stored || !LANGUAGE_CODES.includes(stored.primary as LanguageCode)) return DEFAULT_LANGUAGE;
    const secondary = LANGUAGE_CODES.includes(stored.secondary as LanguageCode) ? (stored.secondary as LanguageCode) : null;
    return { primary: stored.primary as LanguageCode, secondary };
  }

  private calibrationView(): KioskState['calibration'] {
    const stored = Object.entries(this.calibrations) as Array<[ScanOrigin, CalibrationResult]>;
    if (stored.length === 0) return null;
    const latest = stored.reduce((a, b) => (b[1].diagnosis.calibrated_at > a[1].diagnosis.calibrated_at ? b : a));
    return {
      diagnosis: latest[1].diagnosis,
      translating: stored.filter(([, result]) => result.translation !== null).map(([origin]) => origin),
    };
  }

  private changed(): void {
    if (this.closed || this.events.listenerCount('state') === 0) return;
    this.events.emit('state', this.snapshot());
  }
}

function summarize(setup: SetupPayload): SetupSummary {
  return {
    iss: setup.iss,
    eid: setup.eid,
    event_name: setup.event_name ?? null,
    gate_id: setup.gate_id ?? null,
    expires_at: setup.expires_at,
  };
}

/** A status lookup takes a scanned ticket code or a typed ticket ID. */
function tidFromInput(input: string): string | null {
  if (input.startsWith(TICKET_CODE_START)) {
    try {
      return decodeTicketCode(input).payload.tid;
    } catch {
      return null;
    }
  }
  return /^[0-9A-Za-z_-]{1,128}$/.test(input) ? input : null;
}
