/**
 * The kiosk core: plain Node, no Electron. The Electron shell and the web host
 * both wrap one KioskCore and expose it as the KioskApi.
 *
 * Wiring only (docs/architecture.md "One scan at the door, offline and online"):
 * the page calls land here and are passed on to the layers that do the work.
 *   read-paths.ts: repeat reads, calibration, lanes, before a scan is decided;
 *   door-scan.ts, door-annul.ts: a scan and an annulment at the door, around the
 *     decisions in decide/ (scan-decision.ts, annul.ts, door-operations.ts);
 *   sync/: the issuer link, the queue drain and its schedule, the heartbeat, the
 *     revocation list, enrollment, status lookups, the LAN;
 *   store/: the local SQLite state; staff-access.ts, staff-badge-scan.ts: who is
 *     unlocked, by PIN or badge; kiosk-parts.ts builds the parts, starts their timers.
 */
import { handoutsUrlOf } from '../../protocol/handouts.js';
import { give } from './sync/handout-drain.js';
import { EventEmitter } from 'node:events';
import { ANY_SETUP_CODE, type GateDirection, type OfflinePolicy, type Verdict, type AdmitVerdict } from '../../protocol/index.js';
import type { AnnulResult, KioskApi, KioskLanguage, KioskState, LanguageCode, LanesRequest, LeaveKioskModeResult } from './kiosk-api.js';
import type { LogCheckResult, ScanResult, SetLanguageResult, RemoveStaffPinResult, SetStaffPinResult, StaffLocked } from './kiosk-api.js';
import type { ManualCheckInOutcome, StaffPersonRequest, StaffUnlockResult, StatusLookupResult, TicketSearchOutcome } from './kiosk-api.js';
import type { GiveHandoutResult, IdCheckAnswer, VerdictDetailsResult } from './kiosk-api.js';
import { findVerdict, verdictDetailsOf } from './decide/verdict-details.js';
import { LANGUAGE_CODES, kioskLanguage } from './decide/languages.js';
import type { Lane } from './decide/lanes.js';
import type { ScanOrigin } from './decide/repeat-reads.js';
import { annulAtDoor, type DoorAnnulDeps } from './door-annul.js';
import { NOT_ENROLLED, type DoorScan } from './door-scan.js';
import { isStaffBadgeText } from '../../protocol/staff-badge.js';
import { scanStaffBadge, type StaffBadgeScanDeps } from './staff-badge-scan.js';
import type { HidScannerStatus, KioskCoreOptions } from './kiosk-options.js';
import { assembleKiosk, type KioskParts } from './kiosk-parts.js';
import type { ReadPaths } from './read-paths.js';
import type { ReadDetails, ScannerDevice } from './scanner/scan-event.js';
import type { StaffAccess } from './staff-access.js';
import type { KioskCall } from '../../protocol/access.js';
import { needsStaff } from './decide/access.js';
import type { LocalStore } from './store/local-store.js';
import { isStorageFault } from './store/store-recovery.js';
import type { BackgroundWork } from './sync/background.js';
import type { DiscoveryCache } from './sync/discovery.js';
import type { DrainSchedule } from './sync/drain-schedule.js';
import { setupSummary } from './sync/enrollment.js';
import type { Heartbeat } from './sync/heartbeat.js';
import type { IssuerClock } from './sync/issuer-clock.js';
import type { IssuerClient } from './sync/issuer-client.js';
import type { IssuerLink } from './sync/issuer-link.js';
import type { LanDoor } from './sync/lan-door.js';
import type { DrainReport } from './sync/queue-drain.js';
import type { RevocationSchedule, RevocationSync } from './sync/revocation-sync.js';
import { SetupScans } from './sync/setup-scans.js';
import { lookUpStatus } from './sync/status-lookup.js';
import { checkInByHand, findTickets, type TicketSearchDeps } from './ticket-search.js';

export { DEFAULT_ONLINE_BUDGET_MS, type HidScannerStatus, type KioskCoreOptions } from './kiosk-options.js';

const LAST_VERDICTS = 20;
export { LANGUAGE_CODES };

export class KioskCore implements KioskApi {
  private readonly events = new EventEmitter();
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly policy: OfflinePolicy;
  private readonly store: LocalStore;
  /** The staff PIN and unlock (docs/kiosk.md "Staff PIN"); staff-only calls go through guarded(). */
  private readonly staff: StaffAccess;
  /** The host's way out of kiosk mode (the Electron app in kiosk mode); null when it has none. */
  private kioskModeExit: (() => void | Promise<void>) | null = null;
  private readonly client: IssuerClient;
  private readonly discovery: DiscoveryCache;
  /** Online or offline, authorised or not, the API key and the discovery document (sync/issuer-link.ts). */
  private readonly link: IssuerLink;
  /** Fire-and-forget work that close() must wait for, and whether the core is closing. */
  private readonly background: BackgroundWork;
  private hidScanner: KioskState['hid_scanner'] = null;
  private storage: KioskState['storage'];
  /** The last state read from the store, shown while a storage fault keeps it from being read again. */
  private lastSnapshot: KioskState | null = null;
  private lastVerdicts: Verdict[] = [];
  /** Setup codes scanned at the door, and one waiting for a re-enrollment's confirmation (sync/setup-scans.ts). */
  private readonly setups: SetupScans;
  /** Scans run one at a time, so "seen before on this kiosk" cannot race. */
  private scanChain: Promise<unknown> = Promise.resolve();
  /** When the queue is sent (timers, backoff, holds): drain-schedule.ts; what a pass does: sync/drain-pass.ts. */
  private readonly drains: DrainSchedule;
  private readonly drainAbort: AbortController;
  /** The heartbeat and its last answer (sync/heartbeat.ts; the door rules it feeds are decide/door-operations.ts). */
  private readonly doorHeartbeat: Heartbeat;
  /** The revocation list (revocation-sync.ts) and its timer. */
  private readonly revocations: RevocationSync;
  /** The kiosk's clock against the issuer's (sync/issuer-clock.ts, docs/kiosk.md "The kiosk's clock"). */
  private readonly clock: IssuerClock;
  private readonly revocationSchedule: RevocationSchedule;
  private readonly lan: LanDoor;
  /** Repeat reads, calibration and lanes (read-paths.ts). */
  private readonly reads: ReadPaths;
  private readonly doorScan: DoorScan;
  private readonly annulDeps: DoorAnnulDeps;
  private readonly badgeDeps: StaffBadgeScanDeps;
  /** The status lookup's and the ticket search's (ticket-search.ts, docs/kiosk.md "Finding a ticket"). */
  private readonly lookupDeps: TicketSearchDeps;
  private readonly attention: KioskParts['attention']; // holds the door until Done (docs/kiosk.md "Attention notes")
  private readonly idChecks: KioskParts['idChecks']; // a scan waiting for Confirm or Deny (docs/kiosk.md "ID checks")
  private readonly parties: KioskParts['parties']; // a party's scan waiting for how many (docs/kiosk.md "Party tickets")

  constructor(private readonly options: KioskCoreOptions) {
    const parts = assembleKiosk(options, {
      changed: () => this.changed(),
      show: (verdict, lane) => this.show(verdict, lane),
      onSetup: () => this.setups.pending !== null || this.store.getEnrollment() === null,
    });
    ({ now: this.now, log: this.log, policy: this.policy, store: this.store, storage: this.storage, staff: this.staff } = parts);
    ({ client: this.client, discovery: this.discovery, link: this.link, background: this.background, lan: this.lan } = parts);
    ({ clock: this.clock, attention: this.attention, idChecks: this.idChecks, parties: this.parties } = parts);
    ({ drains: this.drains, drainAbort: this.drainAbort, heartbeat: this.doorHeartbeat, revocations: this.revocations } = parts);
    ({ revocationSchedule: this.revocationSchedule, reads: this.reads, doorScan: this.doorScan, annulDeps: this.annulDeps } = parts);
    const { store, discovery, client, link, now } = parts;
    this.badgeDeps = { store, discovery, staff: this.staff, now: this.clock.issuerNow, changed: () => this.changed() };
    const translated = (text: string): string => this.reads.translated('window', text);
    const show = (verdict: Verdict): ScanResult => this.show(verdict, null);
    this.lookupDeps = { store, client, link, translated, notEnrolled: NOT_ENROLLED, staff: this.staff, now, log: this.log, show };
    const [changed, afterEnrolled, platform] = [() => this.changed(), () => this.afterEnrolled(), options.platform];
    this.setups = new SetupScans({ store, apiKeys: options.apiKeys, discovery, client, link, now, platform, changed, afterEnrolled });
  }

  // --- KioskApi -------------------------------------------------------------

  /** A read from the window's keyboard wedge (the page's calls). */
  scan(text: string, read?: ReadDetails): Promise<ScanResult> {
    // A read the page found mangled by the keyboard layout is refused there; here it is only audited (door-scan.ts).
    if (read?.foreignLayout) return Promise.resolve(this.doorScan.refuseForeignLayout(read.foreignLayout));
    return this.scanFrom('window', text, read);
  }

  /**
   * One read from any input path. A read repeating a recent one is the same
   * scan and runs nothing (repeat-reads.ts); a keyboard-mode scanner's
   * keystroke copy shares its HID read's answer. Reads through a calibrated
   * path are translated first, so both copies of a scan compare equal.
   */
  scanFrom(origin: ScanOrigin, raw: string, read?: ReadDetails, symbologyId?: string | null, device?: ScannerDevice): Promise<ScanResult> {
    return this.reads
      .read(
        origin,
        raw,
        { read, symbologyId, device },
        (work) => this.inTurn(work),
        (text, lane) => this.scanNow(text, lane),
      )
      .catch((error: unknown) => {
        if (!isStorageFault(error)) throw error;
        return this.storageFault(error);
      });
  }

  resetCalibration(): Promise<KioskState | StaffLocked> {
    return this.guarded('resetCalibration', () => {
      this.reads.resetCalibration();
      this.changed();
      return this.getState();
    });
  }

  /** docs/kiosk.md "Calibration": staff keep or discard a translation that matches no known layout. */
  calibrate(keep: boolean): Promise<KioskState | StaffLocked> {
    return this.guarded('calibrate', () => {
      if (this.reads.confirm(keep, 'staff')) this.changed();
      return this.getState();
    });
  }

  async confirmReEnroll(): Promise<ScanResult | StaffLocked> {
    if (!this.setups.pending) return { type: 'nothing_to_confirm' };
    return this.guarded('confirmReEnroll', () => {
      const setup = this.setups.pending;
      if (!setup) return { type: 'nothing_to_confirm' } as const;
      this.setups.pending = null;
      return this.setups.enroll(setup);
    });
  }

  async cancelReEnroll(): Promise<KioskState> {
    this.setups.pending = null;
    this.changed();
    return this.getState();
  }

  /** Done: the attention note on screen was read; the door takes scans again (attention-door.ts). */
  attentionDone(): Promise<KioskState | StaffLocked> {
    return this.guarded('attentionDone', () => (this.attention.done(), this.getState()));
  }

  /**
   * A supervisor's override of the attention prompt holding the door (docs/kiosk.md "Attention notes"): the hold
   * ends as with Done, and the audit log records the override with the staff id (attention-door.ts).
   */
  overrideAttention(): Promise<KioskState | StaffLocked> {
    return this.guarded('overrideAttention', () => {
      if (this.attention.override(this.staff.actor())) {
        const person = this.staff.person();
        this.log(`Attention prompt overridden by ${person ? `${person.name} (${person.role})` : 'staff (no staff PIN set)'}.`);
      }
      return this.getState();
    });
  }

  /**
   * docs/kiosk.md "ID checks": Confirm. The waiting scan runs again, in turn with other scans, and is checked in with
   * `id_checked: true` and the staff id of who confirmed (the person unlocked now, else the one unlocked at the scan).
   */
  confirmIdCheck(): Promise<ScanResult | StaffLocked> {
    return this.guarded('confirmIdCheck', () => this.answerIdCheck('confirmed'));
  }

  /** docs/kiosk.md "ID checks": Deny. Refused `id_check_failed`, audited with the staff id; nothing is sent to the issuer. */
  denyIdCheck(): Promise<ScanResult | StaffLocked> {
    return this.guarded('denyIdCheck', () => this.answerIdCheck('denied'));
  }

  /** A supervisor admits the waiting scan without the check, on their authority: audited as an override with the staff id. */
  overrideIdCheck(): Promise<ScanResult | StaffLocked> {
    return this.guarded('overrideIdCheck', () => this.answerIdCheck('overridden'));
  }

  /**
   * docs/kiosk.md "Party tickets": `people` of the waiting party come in now (or leave, at an exit). A number outside
   * 1..remaining (1..inside for an exit) is refused and the prompt stays; otherwise the scan runs again, in turn,
   * checked in (or out) with `people`.
   */
  chooseParty(people: number): Promise<ScanResult | StaffLocked> {
    return this.guarded('chooseParty', () => {
      const waiting = this.parties.peek();
      if (waiting === null) return { type: 'nothing_to_confirm' } as const;
      if (!Number.isSafeInteger(people) || people < 1 || people > this.parties.most())
        return { type: 'party', prompt: this.parties.view()! } as const;
      const pending = this.parties.take()!;
      this.log(
        `Party ticket ${pending.tid}: ${people} of ${pending.party.size} ${waiting.direction === 'exit' ? 'leave' : 'come in'} now.`,
      );
      const options = { people, ...(pending.idChecked === undefined ? {} : { idChecked: pending.idChecked }) };
      return this.inTurn(() => this.doorScan.scan(pending.code, pending.lane, options)).catch((error: unknown) => {
        if (!isStorageFault(error)) throw error;
        return this.storageFault(error);
      });
    });
  }

  /** docs/kiosk.md "Party tickets": nobody comes in now; the waiting scan is dropped, nothing is checked in. */
  cancelParty(): Promise<ScanResult | StaffLocked> {
    return this.guarded('cancelParty', () => {
      const pending = this.parties.take();
      if (pending === null) return { type: 'nothing_to_confirm' } as const;
      this.store.auditDoorRefusal(pending.tid, 'party_cancelled', new Date(this.now()).toISOString());
      return { type: 'nothing_to_confirm' } as const;
    });
  }

  /** Who answered the ID prompt of a recent verdict, by its decided_at (docs/kiosk.md "Verdict details"). */
  private readonly idCheckAnswers = new Map<string, IdCheckAnswer>();

  private rememberIdCheck(result: ScanResult, answer: Omit<IdCheckAnswer, 'at'>, at: string): ScanResult {
    if (result.type !== 'verdict') return result;
    this.idCheckAnswers.set(result.verdict.decided_at, { ...answer, at });
    if (this.idCheckAnswers.size > LAST_VERDICTS) this.idCheckAnswers.delete(this.idCheckAnswers.keys().next().value!);
    return result;
  }

  private answerIdCheck(answer: 'confirmed' | 'denied' | 'overridden'): Promise<ScanResult> {
    const pending = this.idChecks.take();
    if (pending === null) return Promise.resolve({ type: 'nothing_to_confirm' });
    const now = this.staff.actor();
    const who = now.staff_id !== null || pending.scannedBy === null ? now : { ...pending.scannedBy, via: null };
    const at = new Date(this.now()).toISOString();
    const record = {
      tid: pending.tid,
      kind: pending.check.kind,
      ...(pending.check.min_age === undefined ? {} : { min_age: pending.check.min_age }),
      band: pending.check.band,
      source: pending.source,
      staff_id: who.staff_id,
      staff_name: who.name,
      role: who.role,
      asked_at: pending.asked_at,
    };
    const name = who.name === null ? 'staff (no one unlocked)' : `${who.name} (${who.role})`;
    if (answer === 'denied') {
      this.store.auditDoorRefusal(pending.tid, 'id_check_failed', at, record);
      this.log(`ID check denied by ${name}: ticket ${pending.tid} refused, nothing checked in.`);
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'id_check_failed',
        decided_at: at,
        offline: false,
        decided_by: 'id_check',
        ticket: {
          tid: pending.tid,
          eid: pending.eid,
          ...(pending.holder_name === null ? {} : { holder_name: pending.holder_name }),
          ...(pending.ticket_type === null ? {} : { ticket_type: pending.ticket_type }),
        },
      };
      return Promise.resolve(this.rememberIdCheck(this.show(verdict, pending.lane), { answer, ...whoOf(who) }, at));
    }
    this.staff.record({ event: answer === 'confirmed' ? 'id_check_confirmed' : 'id_check_override', ...record, at });
    this.log(`ID check ${answer === 'confirmed' ? 'confirmed' : 'overridden'} by ${name}: ticket ${pending.tid}.`);
    return this.inTurn(async () =>
      this.rememberIdCheck(
        await this.doorScan.scan(pending.code, pending.lane, { idChecked: { staff_id: who.staff_id } }),
        { answer, ...whoOf(who) },
        at,
      ),
    ).catch((error: unknown) => {
      if (!isStorageFault(error)) throw error;
      return this.storageFault(error);
    });
  }

  /** A recent verdict's details, for a steward and up (docs/kiosk.md "Verdict details"; decide/verdict-details.ts). */
  verdictDetails(decidedAt: string): Promise<VerdictDetailsResult> {
    return this.guarded('verdictDetails', () => {
      const verdict = findVerdict(this.lastVerdicts, decidedAt);
      if (verdict === null) return { type: 'no_such_verdict', decided_at: decidedAt } as const;
      const idCheck = this.idCheckAnswers.get(decidedAt) ?? null;
      return { type: 'verdict_details', details: verdictDetailsOf(verdict, this.attention.overrideFor(decidedAt), idCheck) } as const;
    });
  }

  /**
   * docs/kiosk.md "Handouts": the steward's tap on an item of a recent ADMIT or HANDOUT verdict. The one rule on what
   * the kiosk knows refuses a second handout with when and where; otherwise the handout is committed, sent at once
   * (the issuer may still refuse it: another kiosk gave it meanwhile) or left in the queue when the issuer does not
   * answer. The verdict on screen shows the items as they are now.
   */
  giveHandout(decidedAt: string, item: string): Promise<GiveHandoutResult> {
    return this.guarded('giveHandout', async (): Promise<GiveHandoutResult> => {
      const verdict = findVerdict(this.lastVerdicts, decidedAt);
      const enrollment = this.store.getEnrollment();
      if (verdict === null || verdict.kind !== 'admit' || !verdict.ticket || verdict.handouts === undefined || enrollment === null)
        return { type: 'no_such_verdict', decided_at: decidedAt };
      const document = this.discovery.cached(enrollment.iss);
      const url = document === null ? null : handoutsUrlOf(document);
      const lookup =
        url !== null && this.link.authorised && this.link.connection !== 'offline' ? await this.link.loadApiKey(enrollment) : null;
      const apiKey = lookup !== null && 'key' in lookup ? lookup.key : null;
      const identity = this.store.identity();
      const result = await give(
        this.store,
        enrollment,
        { client: this.client, url, apiKey, timeoutMs: this.link.interactiveTimeoutMs },
        {
          tid: verdict.ticket.tid,
          ticketType: verdict.ticket.ticket_type ?? null,
          known: verdict.handouts,
          peers: this.lan.peerHandouts(verdict.ticket.tid),
        },
        item,
        { staff_id: this.staff.actor().staff_id, scannerName: identity.scanner_name ?? identity.scanner_id },
        this.now,
      );
      if (result.kind === 'failed') return { type: 'handout_failed', decided_at: decidedAt, item, message: result.message };
      // docs/kiosk.md "Handouts": LAN peers refuse a second handout of it offline.
      if (result.kind === 'given') this.lan.tellHandout(result.recorded);
      // The verdict on screen shows what is left; a handout left in the queue is sent by the next drain.
      const note: AdmitVerdict['handout_note'] =
        result.kind === 'refused'
          ? result.reason === 'already_given'
            ? { kind: 'refused_given', item, ...(result.given.length > 0 ? { given: result.given[result.given.length - 1]! } : {}) }
            : { kind: 'refused_not_listed', item }
          : result.offline
            ? { kind: 'offline', item }
            : undefined;
      const { handout_note: _previous, ...rest } = verdict;
      const updated: Verdict = { ...rest, handouts: result.handouts, ...(note === undefined ? {} : { handout_note: note }) };
      this.lastVerdicts = this.lastVerdicts.map((shown) => (shown === verdict ? updated : shown));
      if (result.kind === 'given' && result.offline) this.drains.firstRetryUnlessScheduled();
      this.changed();
      if (result.kind === 'refused')
        return {
          type: 'handout_refused',
          decided_at: decidedAt,
          item,
          reason: result.reason,
          given: result.given,
          handouts: result.handouts,
        };
      return { type: 'handout_given', decided_at: decidedAt, item, offline: result.offline, handouts: result.handouts };
    });
  }

  lookupStatus(codeOrTid: string): Promise<StatusLookupResult | StaffLocked> {
    return this.guarded('lookupStatus', () => lookUpStatus(this.lookupDeps, codeOrTid));
  }

  searchTickets(query: string): Promise<TicketSearchOutcome | StaffLocked> {
    return this.guarded('searchTickets', () => findTickets(this.lookupDeps, query));
  }

  /** A found ticket checked in by hand, in turn with the scans (docs/kiosk.md "Finding a ticket"). */
  manualCheckIn(tid: string, reason: string, people?: number): Promise<ManualCheckInOutcome | StaffLocked> {
    return this.guarded('manualCheckIn', () => this.inTurn(() => checkInByHand(this.lookupDeps, tid, reason, people)));
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
        this.background.run(this.heartbeat());
      }
      this.changed();
      return this.getState();
    });
  }

  /**
   * Undoes a recent check-in (docs/kiosk.md "Annul at the door"). Staff only,
   * offered while the issuer gives this scanner the annul right (door-annul.ts).
   */
  annul(tid: string, reason: string): Promise<AnnulResult | StaffLocked> {
    return this.guarded('annul', () => this.inTurn(() => annulAtDoor(this.annulDeps, tid, reason)));
  }

  /** One scanner heartbeat now (sync/heartbeat.ts): also what the timer runs every minute. Single-flight. */
  heartbeat(afterDrain = false): Promise<void> {
    return this.doorHeartbeat.run(afterDrain);
  }

  /** One sync of the revocation list now (docs/kiosk.md "Revocation list"; revocation-sync.ts). Never throws. */
  syncRevocations(): Promise<void> {
    return this.revocationSchedule.run();
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

  setStaffPin(pin: string, person?: StaffPersonRequest): Promise<SetStaffPinResult> {
    return this.staff.setPin(pin, person).finally(() => this.changed());
  }

  removeStaffPin(staffId: string): Promise<RemoveStaffPinResult> {
    return Promise.resolve(this.staff.removePin(staffId)).finally(() => this.changed());
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
    const locked = this.staff.check(call);
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
    this.reads.setScannerDevices(devices);
    this.changed();
  }

  /** docs/kiosk.md "Several scanners": map, cancel a mapping, or forget the lanes (read-paths.ts). */
  configureLanes(request: LanesRequest): Promise<KioskState | StaffLocked> {
    return this.guarded('configureLanes', () => {
      if (this.reads.configureLanes(request)) this.changed();
      return this.getState();
    });
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
    if (this.background.closed) return;
    this.background.close();
    this.staff.close();
    this.attention.close();
    this.revocationSchedule.close();
    await this.doorHeartbeat.close();
    this.drainAbort.abort();
    await this.drains.close();
    await this.scanChain;
    await this.background.settled();
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

  /** One scan on its lane (null: no lanes): a setup code enrolls, anything else is a ticket at the door (door-scan.ts). */
  private scanNow(raw: string, lane: Lane | null): Promise<ScanResult> {
    // Keyboard-wedge scanners end a code with Enter; some add a tab or spaces.
    const text = raw.trim();
    // docs/kiosk.md "Staff badges": a badge unlocks its role and is never checked in as a ticket.
    if (isStaffBadgeText(text)) return Promise.resolve(scanStaffBadge(text, this.badgeDeps));
    if (ANY_SETUP_CODE.test(text)) return this.setups.scan(text);
    const held = this.attention.refusal(); // docs/kiosk.md "Attention notes": Done first
    if (held) return Promise.resolve(held);
    const asking = this.idChecks.refusal(); // docs/kiosk.md "ID checks": Confirm or Deny first
    if (asking) return Promise.resolve(asking);
    const picking = this.parties.refusal(); // docs/kiosk.md "Party tickets": how many first
    if (picking) return Promise.resolve(picking);
    // Who is at the kiosk now: an ID check asked by this scan records them when nobody is unlocked at Confirm.
    const actor = this.staff.actor();
    const who = actor.staff_id === null ? null : { staff_id: actor.staff_id, name: actor.name, role: actor.role };
    // A badge's unlock lasts until the next ticket scan.
    this.staff.endBadgeAtTicket();
    return this.doorScan.scan(text, lane, { who });
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

  private show(decided: Verdict, lane: Lane | null): ScanResult {
    // docs/kiosk.md "Several scanners": the verdict names its lane, so the screen shows it in that lane's half.
    const verdict: Verdict = lane ? { ...decided, lane: lane.id } : decided;
    this.lan.publishAdmission(verdict);
    this.lan.publishExit(verdict);
    this.lastVerdicts = [verdict, ...this.lastVerdicts].slice(0, LAST_VERDICTS);
    this.reads.readAgain = null;
    this.attention.shown(verdict, verdict.lane ?? null);
    this.changed();
    return { type: 'verdict', verdict };
  }

  // --- enrollment -----------------------------------------------------------

  /** What follows an enrollment (sync/setup-scans.ts): a fresh door, the queue, the heartbeat, the list, the LAN. */
  private afterEnrolled(): void {
    this.lastVerdicts = [];
    if (this.store.pendingCount() > 0) this.drains.soon();
    this.changed();
    this.background.run(this.heartbeat()); // the event's door settings and this scanner's rights, at once
    this.background.run(this.syncRevocations()); // the event's revocation list, at once
    if (this.options.lan) this.background.run(this.lan.join()); // the new event's LAN key
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
      authorised: this.link.authorised,
      scanner: { id: identity.scanner_id, name: identity.scanner_name },
      issuer: enrollment ? { iss: enrollment.iss, name: enrollment.issuer_name } : null,
      event: enrollment ? { eid: enrollment.eid, name: enrollment.event_name, date: enrollment.event_date } : null,
      gate_id: enrollment?.gate_id ?? null,
      api_key_id: enrollment?.api_key_id ?? null,
      key_expires_at: enrollment?.key_expires_at ?? null,
      connection: this.link.connection,
      offline_policy: this.policy,
      direction: enrollment?.direction ?? 'entry',
      ...this.doorHeartbeat.view(enrollment, this.staff.badgeRole()),
      pending_scans: this.store.pendingCount(),
      last_verdicts: [...this.lastVerdicts],
      double_admissions: this.store.doubleAdmissions().map(({ idempotency_key: _key, ...view }) => view),
      revocations: this.revocations.view(enrollment),
      re_enroll_pending: this.setups.pending ? setupSummary(this.setups.pending) : null,
      read_again: this.reads.readAgain,
      staff_code_ignored: this.reads.staffCodeIgnored,
      calibration: this.reads.calibrationView(),
      calibration_to_confirm: this.reads.unconfirmedView(),
      hid_scanner: this.hidScanner,
      storage: this.storage,
      staff: this.staff.state(this.kioskModeExit !== null),
      language: kioskLanguage(this.store.getLanguage()),
      lanes: this.reads.lanesView(enrollment?.direction ?? 'entry'),
      clock: this.clock.view(),
      attention_hold: this.attention.view(),
      id_check_prompt: this.idChecks.view(),
      party_prompt: this.parties.view(),
    };
  }

  private changed(): void {
    if (this.events.listenerCount('state') === 0 || this.background.closed) return;
    this.events.emit('state', this.snapshot());
  }
}

/** An ID answer's who, in the form of an attention override's (staff-access.ts actor). */
function whoOf(who: { staff_id: string | null; name: string | null; role: string; via?: unknown }): Omit<IdCheckAnswer, 'at' | 'answer'> {
  return {
    staff_id: who.staff_id,
    name: who.name,
    role: who.role as IdCheckAnswer['role'],
    via: (who.via ?? null) as IdCheckAnswer['via'],
  };
}
