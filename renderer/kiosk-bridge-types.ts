/**
 * The kiosk's bridge: what the page may ask of the kiosk (`window.kiosk`,
 * KioskApi) and everything that crosses with it. The one definition: the
 * Electron preload (main/electron/preload.cts) and the web host's script
 * (main/web-host/host-script.ts) both `satisfies` KioskApi, and the core
 * implements it (main/kiosk/kiosk-core.ts, through main/kiosk/kiosk-api.ts).
 *
 * Types only, plain JSON data only: everything here crosses a process or
 * network boundary. No API key, enrollment token or other secret ever appears
 * in these types (docs/protocol.md "Authentication": the key is never shown or logged).
 * DOM-free, so pure modules and Node tests can use it; main/ imports it
 * type-only, so no page code reaches the Node side.
 */
import type {
  EntryPolicy,
  ExposureRow,
  GateDirection,
  IsoDateTime,
  OccupancyLevel,
  OfflinePolicy,
  TicketStatus,
  Verdict,
} from '../protocol/index.js';
import type { ForeignLayout } from '../protocol/keyboard-layouts.js';
import type { TicketSearchResult } from '../protocol/search-name.js';
import type { KioskRole, StaffRole } from '../protocol/access.js';

import type { Handout, HandoutGiven } from '../protocol/handouts.js';
export type { Handout, HandoutGiven } from '../protocol/handouts.js';
export type { IsoDateTime, RefusalReason, TicketState, TicketStatus, Verdict } from '../protocol/index.js';
export type { EntryPolicy, ExposureRow, GateDirection, OccupancyLevel } from '../protocol/index.js';
export type { KioskRole, StaffRole } from '../protocol/access.js';

/** Where a read came from: the window's keyboard wedge, or a HID scanner read by the kiosk (main/kiosk/decide/repeat-reads.ts). */
export type ScanOrigin = 'window' | 'hid-pos' | 'hid-keyboard';

/**
 * What ended a scan: a terminator key or character, the end of a HID-POS
 * report sequence (its continuation flag cleared), or a pause with no
 * terminator at all.
 */
export type ScanTerminator = 'cr' | 'lf' | 'crlf' | 'tab' | 'report_end' | 'pause';

/** Facts about one read that only the input path knows. Never holds scanned data beyond control keys. */
export interface ReadDetails {
  terminator: ScanTerminator;
  /** Control keys or characters the scanner sent before the data, named for people, e.g. "Ctrl+B (STX)". */
  prefixKeys: string[];
  /** The same after the data, terminator excluded. */
  suffixKeys: string[];
  /** Reports (HID-POS) or key presses (HID keyboard) that carried the scan. */
  units: number;
  /** From the first report or key of the scan to the one that ended it, in ms (the timestamps given to the decoder). */
  durationMs: number;
  /** HID-POS only: the report layout the scan was read with, e.g. "Honeywell (64-byte, report 2)". */
  layout?: string;
  /**
   * The window's wedge only: the read is a code typed through this keyboard layout, not the scanner's US one
   * (e.g. "de"). The page shows its layout-mismatch refusal; the kiosk decides nothing from the text and only
   * records the refusal in its audit log (docs/kiosk.md "The kiosk's audit log").
   */
  foreignLayout?: string;
}

/** Why an enrollment failed: stable codes the screens translate (main/kiosk/decide/enroll-failures.ts lists them all). */
export type EnrollFailureCode =
  /** A `tsetup1.` code that does not decode. */
  | 'not_a_setup_code'
  /** Setup `v` not spoken here. */
  | 'unsupported_version'
  /** `iss` is not an HTTPS (or loopback) base URL. */
  | 'bad_issuer_url'
  /** `enroll_url` is not HTTPS (or loopback). */
  | 'bad_enroll_url'
  /** The setup code's `expires_at` has passed. */
  | 'setup_expired'
  /** Discovery or the exchange could not reach the issuer. */
  | 'issuer_unreachable'
  /** The discovery document is invalid. */
  | 'bad_discovery'
  /** `enroll_url` differs from discovery endpoints.scanner_enroll. */
  | 'enroll_url_mismatch'
  /** 400 INVALID_TOKEN: malformed, expired or already used. */
  | 'token_invalid'
  /** 403 TOKEN_REVOKED. */
  | 'token_revoked'
  /** 400 PROTOCOL_VERSION_UNSUPPORTED. */
  | 'protocol_version_unsupported'
  /** 429. */
  | 'rate_limited'
  /** 5xx or an answer that is not per spec. */
  | 'issuer_error'
  /** The issuer answered for another issuer or event than the setup code named. */
  | 'scope_mismatch'
  /** No usable OS keyring to keep the API key (docs/protocol.md "Authentication"). */
  | 'secret_store_unavailable';

/** How one code character differs on this path, for the diagnosis' words. */
export type LayoutDifference = { kind: 'swapped'; a: string; b: string } | { kind: 'typed_as'; expected: string; received: string };

/** Code characters that arrive as one and the same character: this path cannot carry them apart. */
export interface Collision {
  received: string;
  expected: string[];
}

export type LayoutId = 'us' | ForeignLayout | 'unknown';

export interface ScannerDiagnosis {
  /** Which input path the calibration code came through. */
  input_path: ScanOrigin;
  /** The keyboard layout as seen through the scanner: 'us' when nothing changes. */
  layout: LayoutId;
  differences: LayoutDifference[];
  collisions: Collision[];
  /** not_needed: codes arrive unchanged; learned: later reads are translated; impossible: see collisions. */
  translation: 'not_needed' | 'learned' | 'impossible';
  /** Null when the path does not say (a window read whose terminator was not seen). */
  terminator: ReadDetails['terminator'] | null;
  /** The scanner's own prefix and suffix: printable text it adds, and control keys (e.g. "Ctrl+B (STX)"). */
  prefix: string[];
  suffix: string[];
  characters: number;
  ms_per_character: number | null;
  ms_per_code: number | null;
  /** HID-POS only: the report layout, and the AIM symbology identifier when sent. */
  hid_layout: string | null;
  symbology_id: string | null;
  calibrated_at: IsoDateTime;
}

export type ConnectionState = 'online' | 'offline' | 'unknown';

/** What a setup code proposes, shown to the operator before acting on it. */
export interface SetupSummary {
  iss: string;
  eid: string;
  event_name: string | null;
  gate_id: string | null;
  expires_at: IsoDateTime;
}

/**
 * An offline admission the issuer contradicted when it reached it (docs/kiosk.md "Double admissions"):
 * `already_used` (two people may be inside on one ticket) or `revoked` (revoked while this kiosk could not hear of it).
 */
export interface DoubleAdmissionView {
  tid: string;
  eid: string;
  /** What the issuer answered: the reason the admission is in the report. */
  conflict: 'already_used' | 'revoked' | 'party_full';
  /** `party_full` (docs/kiosk.md "Party tickets"): how many people admitted here the issuer did not count. */
  refused_people?: number;
  holder_name?: string;
  /** When this kiosk admitted the ticket offline. */
  admitted_here_at: IsoDateTime;
  /** When the issuer had first checked it in (already_used); null otherwise. */
  first_checked_in_at: IsoDateTime | null;
}

/** The kiosk's revocation list (docs/kiosk.md "Revocation list"), as Ready shows its age. */
export interface RevocationListView {
  /** When the last sync reached the end of the issuer's list; null while none has. */
  synced_at: IsoDateTime | null;
  /** Revoked tickets in the list. */
  count: number;
  /** Ready warns when the list is older than this (kiosk option revocationMaxAgeMs). */
  max_age_ms: number;
}

/** The languages the kiosk's screens can speak. */
export type LanguageCode = 'en' | 'de' | 'fr' | 'es';

/** The door's languages: the primary one, and optionally a second shown alongside it. */
export interface KioskLanguage {
  primary: LanguageCode;
  secondary: LanguageCode | null;
}

/** Staff access (docs/kiosk.md "Staff PIN"). The PIN itself never crosses. */
export interface StaffState {
  /** A staff PIN is set. Without one, staff functions are open and the staff screens say so. */
  pin_set: boolean;
  /** The setup code required a PIN and none is set yet: tickets are not scanned until one is. */
  pin_needed: boolean;
  /** Staff functions may run now: a PIN was entered recently, or none is set. */
  unlocked: boolean;
  /** When the unlock ends unless another staff action extends it; null when locked or no PIN is set. */
  unlocked_until: IsoDateTime | null;
  /** Too many wrong PINs: no PIN is checked before this time. */
  locked_until: IsoDateTime | null;
  /** Wrong PINs left before the staff menu locks (0 once it has locked: each further wrong PIN locks it again, longer). */
  attempts_left: number;
  /** Who is in front of the kiosk (protocol/access.ts): `anyone`, or the role unlocked (everyone is `technician` while no PIN is set). */
  role: KioskRole;
  /** The person unlocked now (by a PIN of their own, the kiosk PIN or a staff badge); null when none is. */
  person: StaffPerson | null;
  /** The crew members with a PIN of their own on this kiosk (never their PINs). */
  people: Array<Omit<StaffPerson, 'via'>>;
  /** The host can leave kiosk mode (the Electron app in kiosk mode). */
  can_leave_kiosk_mode: boolean;
}

/** A crew member at the kiosk (docs/kiosk.md "Staff PIN", "Staff badges"). */
export interface StaffPerson {
  staff_id: string;
  name: string;
  role: StaffRole;
  /** How they unlocked: a PIN of their own, the kiosk PIN (the technician's fallback), or a staff badge. */
  via: 'pin' | 'kiosk_pin' | 'badge';
}

/** Who sets a PIN of their own (setStaffPin's second argument). */
export interface StaffPersonRequest {
  staff_id: string;
  name: string;
  role: StaffRole;
}

/** The answer of a staff-only call made while staff functions are locked: the call did not run. */
export interface StaffLocked {
  type: 'staff_locked';
  /** Set while wrong PINs keep the staff menu locked: no PIN is checked before then. */
  locked_until: IsoDateTime | null;
  /** In English, for logs and IT; the page says it in the kiosk's language from the fields below. */
  message: string;
  /** The call refused (a row of the access table, protocol/access.ts). */
  call: string;
  /** The lowest staff role that may make it (docs/protocol.md "Roles and rights"). */
  needs: StaffRole | null;
  /** Who is unlocked now, whose role falls short; null when no one is (the PIN, or a badge, is what is missing). */
  unlocked_as: { name: string; role: StaffRole } | null;
}

export type StaffUnlockResult =
  | { type: 'unlocked'; unlocked_until: IsoDateTime; person: StaffPerson }
  | { type: 'wrong_pin'; attempts_left: number; locked_until: IsoDateTime | null }
  | { type: 'locked_out'; locked_until: IsoDateTime }
  | { type: 'no_pin' };

/**
 * The kiosk's check of its own hash-chained audit log (docs/kiosk.md "The kiosk's audit log"): every record's
 * hash recomputed, every link followed. `broken`: the first broken record (its seq) and what differs.
 */
export interface LogCheckResult {
  type: 'log_check';
  ok: boolean;
  /** Records checked (up to and with the first broken one). */
  records: number;
  /** The last good record's position and hash: what the heartbeat reports to the issuer. */
  head: { position: number; hash: string };
  broken: { id: number; kind: string; message: string } | null;
}

/** removeStaffPin's answer: the person's PIN is gone, or no one has that staff id. Never a PIN or its hash. */
export type RemoveStaffPinResult = { type: 'pin_removed'; staff_id: string } | { type: 'no_such_person'; staff_id: string } | StaffLocked;

export type SetStaffPinResult = { type: 'pin_set' } | { type: 'invalid_pin'; message: string } | StaffLocked;

export type SetLanguageResult = { type: 'language_set'; language: KioskLanguage } | StaffLocked;

export type LeaveKioskModeResult = { type: 'left_kiosk_mode' } | { type: 'not_in_kiosk_mode'; message: string } | StaffLocked;

/** Door operations as the issuer's last heartbeat described them (docs/kiosk.md "Offline exposure policy"). */
export interface DoorState {
  heartbeat_at: IsoDateTime;
  entry_policy: EntryPolicy;
  capacity: number | null;
  /** The last known occupancy (heartbeat, or a newer entry or exit answer); `full` shows a banner on an entry kiosk. */
  occupancy: { inside: number; capacity: number | null; level: OccupancyLevel };
  /** The issuer lets this scanner annul check-ins: the Verdict and lookup screens offer it. */
  can_annul: boolean;
  /** How long after a check-in it may still be annulled here. */
  annul_window_ms: number;
}

/** The answer to annul() (docs/kiosk.md "Annul at the door"). */
export type AnnulResult =
  /** The issuer undid the check-in: a rescan admits. */
  | { type: 'annulled'; tid: string }
  /** The issuer had nothing to undo. */
  | { type: 'not_checked_in'; tid: string }
  /** The issuer did not answer: the annulment is queued and sent like any offline scan. */
  | { type: 'queued_offline'; tid: string }
  /** The scanner has no annul right (heartbeat rights, or the issuer's 403). */
  | { type: 'not_allowed'; message: string }
  /** The check-in is older than the annul window. */
  | { type: 'too_late'; checked_in_at: IsoDateTime | null; window_ms: number }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string }
  /** The issuer could not be asked when the check-in was (not a check-in of this kiosk), or refused the request. */
  | { type: 'unavailable'; message: string };

export interface KioskState {
  enrolled: boolean;
  /** False once the issuer answered 401/403: the kiosk must be re-enrolled. */
  authorised: boolean;
  scanner: { id: string; name: string };
  issuer: { iss: string; name: string } | null;
  event: { eid: string; name: string; date: IsoDateTime } | null;
  gate_id: string | null;
  /** The key's safe-to-log identifier (never the key). */
  api_key_id: string | null;
  key_expires_at: IsoDateTime | null;
  connection: ConnectionState;
  offline_policy: OfflinePolicy;
  /** Scans waiting to reach the issuer. */
  pending_scans: number;
  /** Newest first. */
  last_verdicts: Verdict[];
  /** Tickets admitted offline here that the issuer says were already used, or revoked. */
  double_admissions: DoubleAdmissionView[];
  /** The revocation list of the enrolled event; null (or absent) before its first sync or at an issuer without one. */
  revocations?: RevocationListView | null;
  /** A setup code scanned while enrolled, waiting for confirmReEnroll() or cancelReEnroll(). */
  re_enroll_pending: SetupSummary | null;
  /**
   * The scanner read the code of a recent verdict again (a double read): no new
   * check-in, no new verdict. Identifies the verdict by its decided_at and tid.
   */
  read_again: { decided_at: IsoDateTime; tid: string | null; reads: number } | null;
  /**
   * The last calibration code read where it is not acted on (docs/kiosk.md "Calibration"), from any input path:
   * a HID scanner's read never answers a page call, so the page learns of it here and says "staff code: ignored".
   */
  staff_code_ignored: { at: IsoDateTime; origin: ScanOrigin } | null;
  /** What the last calibration found, and which input paths are translated (docs/kiosk.md "Calibration"). */
  calibration: { diagnosis: ScannerDiagnosis; translating: ScanOrigin[] } | null;
  /** A calibration whose translation matches no known layout, waiting for staff to keep or discard it; null when none. */
  calibration_to_confirm: ScannerDiagnosis | null;
  /** The HID scanner as the kiosk sees it; null when the host does not read HID scanners. */
  hid_scanner: { state: 'connected' | 'disconnected'; reason: string | null; message: string } | null;
  /**
   * The kiosk's own storage (docs/kiosk.md "Storage integrity"): `recovered`
   * after a damaged kiosk.db was set aside at this start, `recovered_earlier`
   * when that happened at an earlier start (kept for IT), `fault` when it is
   * found damaged while running. Null when nothing happened.
   */
  storage: { state: 'recovered' | 'recovered_earlier' | 'fault'; message: string; damaged_file: string | null } | null;
  /** The staff PIN and whether staff functions are unlocked (docs/kiosk.md "Staff PIN"). */
  staff: StaffState;
  /** The screens' languages, set by staff (default English alone). */
  language: KioskLanguage;
  /** Which way this kiosk scans (setup code `direction`, changed by staff with setDirection). */
  direction: GateDirection;
  /** The issuer's last heartbeat; null before the first, or when the issuer has no door operations. */
  door: DoorState | null;
  /** Per ticket type: this kiosk's offline admissions in the last rolling hour, its policy and cap. */
  offline_exposure: ExposureRow[];
  /** Several scanners, one per lane (docs/kiosk.md "Several scanners"); absent or null: one door, as before. */
  lanes?: LanesState | null;
  /** The kiosk's clock against the issuer's (docs/kiosk.md "The kiosk's clock"); absent from an older core. */
  clock?: KioskClockState;
  /** An attention verdict holding the door until Done or its time (docs/kiosk.md "Attention notes"); null: none. */
  attention_hold?: AttentionHoldView | null;
  /** A scan waiting for the steward's ID check, Confirm or Deny (docs/kiosk.md "ID checks"); null: none. */
  id_check_prompt?: IdCheckPromptView | null;
  /** docs/kiosk.md "Party tickets": a party ticket's scan waiting for how many people come in now. */
  party_prompt?: PartyPromptView | null;
}

/**
 * The party screen (docs/kiosk.md "Party tickets"): a ticket that admits several people asks how many come in now,
 * 1 to `remaining` as this kiosk knows it, or at an exit how many leave now, 1 to `inside`. Nothing is checked in (or
 * out) until the steward picks a number.
 */
export interface PartyPromptView {
  tid: string;
  /** `entry`: how many come in (1..remaining); `exit`: how many leave (1..inside). */
  direction: 'entry' | 'exit';
  holder_name: string | null;
  ticket_type: string | null;
  size: number;
  inside: number;
  admitted_total: number;
  remaining: number;
  /** Where the counts come from: the issuer's status answer just now, or what this kiosk last knew. */
  source: 'issuer' | 'known';
  asked_at: IsoDateTime;
  lane: string | null;
  refused_scans: number;
}

/**
 * The ID screen (docs/kiosk.md "ID checks"): the holder's short name and, for an age check, the minimum age and the
 * band the issuer gave (never a date of birth). Nothing is checked in until Confirm; Deny refuses `id_check_failed`.
 */
export interface IdCheckPromptView {
  tid: string;
  kind: 'name' | 'age';
  min_age?: number;
  holder: string;
  band: 'over' | 'under' | 'unknown';
  asked_at: IsoDateTime;
  lane: string | null;
  refused_scans: number;
}

/** The attention verdict on screen (by its decided_at and tid), when its hold ends, and the scans refused meanwhile. */
export interface AttentionHoldView {
  decided_at: IsoDateTime;
  tid: string | null;
  until: IsoDateTime;
  refused_scans: number;
}

/**
 * A supervisor's override of an attention prompt (docs/kiosk.md "Attention notes"): the held door released
 * without Done, and who did it. `staff_id` and `name` are null on a kiosk without a PIN (everyone is its technician).
 */
export interface AttentionOverride {
  at: IsoDateTime;
  staff_id: string | null;
  name: string | null;
  role: KioskRole;
  via: StaffPerson['via'] | null;
}

/** Who answered an ID prompt, and how (docs/kiosk.md "ID checks"). */
export interface IdCheckAnswer extends AttentionOverride {
  answer: 'confirmed' | 'denied' | 'overridden';
}

/**
 * A recent verdict's details (docs/kiosk.md "Verdict details"), for a steward and up: what the screen's words
 * sum up, as codes and times, and whether its attention prompt was overridden, by whom.
 */
export interface VerdictDetails {
  decided_at: IsoDateTime;
  kind: Verdict['kind'];
  /** A refusal's reason code; null for an admit or an exit. */
  reason: string | null;
  /** The check or the party that decided (protocol/verdict.ts DecidedBy): `issuer`, `seen_here`, `offline_policy`, … */
  decided_by: string;
  offline: boolean;
  lane: string | null;
  tid: string | null;
  eid: string | null;
  ticket_type: string | null;
  /** When and where the ticket was first checked in (`already_used`; `admitted_at_other_gate`: the peer kiosk too). */
  first_used: { at: IsoDateTime; gate: string | null; scanner_id: string | null; offline: boolean | null } | null;
  /** The check-in rule that refused (`rule_refused`), by its name. */
  rule: string | null;
  /** The verdict's short technical detail (never a secret). */
  detail: string | null;
  /** For `revoked` decided offline: when the revocation list was last synced. */
  revocations_synced_at: IsoDateTime | null;
  attention: { required: boolean; notes: string[] } | null;
  /** The supervisor's override of this verdict's attention prompt; null when none. */
  override: AttentionOverride | null;
  /** docs/kiosk.md "ID checks": the ID prompt answered before this verdict, and who answered it; absent when none. */
  id_check?: IdCheckAnswer;
}

/**
 * giveHandout's answer (docs/kiosk.md "Handouts"): `given` (recorded; `offline` when it waits in the queue) or
 * `refused` (not listed, or all given: `given` says when and where), each with the ticket's items now;
 * `no_such_verdict` once the verdict is not among the kiosk's recent ones.
 */
export type GiveHandoutResult =
  | { type: 'handout_given'; decided_at: IsoDateTime; item: string; offline: boolean; handouts: Handout[] }
  | {
      type: 'handout_refused';
      decided_at: IsoDateTime;
      item: string;
      reason: 'not_listed' | 'already_given';
      given: HandoutGiven[];
      handouts: Handout[];
    }
  | { type: 'handout_failed'; decided_at: IsoDateTime; item: string; message: string }
  | { type: 'no_such_verdict'; decided_at: IsoDateTime }
  | StaffLocked;

/** verdictDetails' answer; `no_such_verdict` once the verdict is not among the kiosk's recent ones. */
export type VerdictDetailsResult =
  { type: 'verdict_details'; details: VerdictDetails } | { type: 'no_such_verdict'; decided_at: IsoDateTime } | StaffLocked;

/** What the kiosk knows of its clock (docs/kiosk.md "The kiosk's clock"). */
export interface KioskClockState {
  /** Issuer time minus kiosk time, ms; null before the first answer from an issuer. */
  offset_ms: number | null;
  /** Off by more than a minute: Ready warns staff. */
  warn: boolean;
  /** When it was last measured (kiosk clock, ISO); null before the first answer. */
  measured_at: string | null;
}

/** One lane of a kiosk with several scanners (docs/kiosk.md "Several scanners"). */
export interface LaneView {
  /** `lane-1`, `lane-2`, …: what a verdict's `lane` names. */
  id: string;
  label: string;
  /** The lane's direction, or the kiosk's when the lane has none of its own. */
  direction: GateDirection;
  own_direction: boolean;
  /** The mapped scanner's name and ids (never its serial number); null when none is mapped (the window's lane). */
  scanner: string | null;
  /** The mapped scanner is plugged in and open. */
  connected: boolean;
}

export interface LanesState {
  /** Where the lanes come from: the Setup screen's mapping (kept in kiosk.db) or the configuration file (which wins). */
  source: 'setup' | 'file';
  lanes: LaneView[];
  /** The lane keyboard-wedge scans from the window go to. */
  window_lane: string;
  /** A mapping on the Setup screen in progress: scan the calibration code with the scanner for lane `step` (1-based) of `of`. */
  mapping: LaneMappingState | null;
}

export interface LaneMappingState {
  step: number;
  of: number;
  label: string;
  /** Why the last calibration read was not taken: it came from the window (no device to tell), or from a scanner already on a lane. */
  problem: 'window' | 'already_mapped' | null;
}

/** What staff set on the Setup screen: lanes to map by scanning, stop a mapping, or forget the lanes. */
export type LanesRequest =
  { action: 'map'; lanes: Array<{ label: string; direction: GateDirection | null }> } | { action: 'cancel' } | { action: 'clear' };

export type ScanResult =
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'enrolled'; issuer_name: string; event_name: string; event_date: IsoDateTime; gate_id: string | null }
  | { type: 'enroll_failed'; code: EnrollFailureCode; message: string }
  | {
      type: 'confirm_re_enroll';
      current: { issuer_name: string; event_name: string; gate_id: string | null };
      proposed: SetupSummary;
      pending_scans: number;
    }
  | { type: 'nothing_to_confirm' }
  /** The same code read again within the repeat window: the earlier read's verdict stands (docs/kiosk.md "Double reads"). */
  | { type: 'repeat_read'; reads: number }
  /** The calibration code: what the kiosk learned about the scanner. */
  | { type: 'calibrated'; diagnosis: ScannerDiagnosis }
  /** A translation matching no known layout: not used until staff confirm it (calibrate). */
  | { type: 'calibration_unconfirmed'; diagnosis: ScannerDiagnosis }
  /** A calibration code read outside Setup with no technician at the kiosk: nothing changed (docs/kiosk.md "Calibration"). */
  | { type: 'staff_code_ignored'; message: string }
  /** A read the page found typed through another keyboard layout (ReadDetails.foreignLayout): refused, audited. */
  | { type: 'layout_mismatch'; layout: string }
  /** A staff badge unlocked its role (docs/kiosk.md "Staff badges"); never checked in as a ticket. */
  | { type: 'staff_unlocked'; person: StaffPerson; unlocked_until: IsoDateTime }
  /** A staff badge that does not unlock this kiosk (expired, revoked, another event, a bad signature …). */
  | { type: 'staff_badge_refused'; check: string; message: string }
  | { type: 'not_enrolled'; message: string }
  /** The issuer refused this scanner's key (401/403): re-enroll. Not a verdict on the ticket. */
  | { type: 'scanner_unauthorized'; message: string }
  /** The kiosk's database is damaged: nothing can be recorded; call IT. Not a verdict on the ticket. */
  | { type: 'storage_fault'; message: string }
  /** The setup code required a staff PIN and none is set yet: no ticket is scanned until one is. */
  | { type: 'staff_pin_needed'; message: string }
  /** An attention verdict holds the door (docs/kiosk.md "Attention notes"): tap Done, then scan again. Nothing was checked in. */
  | { type: 'attention_held'; message: string }
  /** docs/kiosk.md "ID checks": the ticket waits for the steward's ID check; nothing is checked in until Confirm. */
  | { type: 'id_check'; prompt: IdCheckPromptView }
  /** A ticket scanned while an ID check waits: refused, audited; finish the check, then scan again. */
  | { type: 'id_check_pending'; message: string }
  /** docs/kiosk.md "Party tickets": how many of the party come in now? Nothing is checked in until a number is picked. */
  | { type: 'party'; prompt: PartyPromptView }
  /** A ticket scanned while a party prompt waits: refused, audited; pick a number (or Cancel), then scan again. */
  | { type: 'party_pending'; message: string };

export type StatusLookupResult =
  | { type: 'status'; status: TicketStatus }
  | { type: 'not_found' }
  | { type: 'not_a_ticket' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string }
  /** Offline, rate-limited or an issuer failure: try again later. */
  | { type: 'unavailable'; message: string };

/** docs/kiosk.md "Finding a ticket": a ticket the issuer's search found, with the notes, handouts and party it may carry. */
export interface FoundTicket extends TicketSearchResult {
  attention?: { required: boolean; notes: string[] };
}

/** A search at the kiosk (docs/kiosk.md "Finding a ticket"): online only. */
export type TicketSearchOutcome =
  | { type: 'results'; results: FoundTicket[]; more: boolean }
  /** The issuer cannot be reached (or has no search): the search needs it; the message says why, for the log. */
  | { type: 'offline'; message: string }
  /** This scanner's key may not search (a steward's key, docs/protocol.md "Ticket search"). */
  | { type: 'not_allowed' }
  /** Nothing to search for (no letter or digit), or too long. */
  | { type: 'invalid_query' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string };

/** A found ticket checked in by hand with a reason: the issuer's answer, shown as a verdict. */
export type ManualCheckInOutcome =
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'offline'; message: string }
  /** The issuer refused a manual entry from this key and staff (docs/protocol.md "Ticket search"). */
  | { type: 'not_allowed' }
  | { type: 'not_found' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string };

export interface KioskApi {
  /**
   * One scanned string (ticket, setup code, calibration code or garbage) from
   * the window's keyboard wedge → what the door shows. `read` says how it
   * arrived (terminator, keys, timing), for the calibration diagnosis.
   */
  scan(text: string, read?: ReadDetails): Promise<ScanResult>;
  /** Forgets what calibration learned: reads are taken as they arrive again. Staff only. */
  resetCalibration(): Promise<KioskState | StaffLocked>;
  /** Keeps (true) or discards (false) a translation waiting for confirmation (docs/kiosk.md "Calibration"). Technician only. */
  calibrate(keep: boolean): Promise<KioskState | StaffLocked>;
  /** Switches to the event of the setup code scanned while enrolled. Staff only. */
  confirmReEnroll(): Promise<ScanResult | StaffLocked>;
  cancelReEnroll(): Promise<KioskState>;
  /** Reads a ticket's status without checking it in. Accepts a `tkt1.` code or a tid. Staff only. */
  lookupStatus(codeOrTid: string): Promise<StatusLookupResult | StaffLocked>;
  /** docs/kiosk.md "Finding a ticket": the issuer's tickets by holder name, short id or ticket id (supervisor and up). */
  searchTickets(query: string): Promise<TicketSearchOutcome | StaffLocked>;
  /**
   * docs/kiosk.md "Finding a ticket": checks a found ticket in by hand, with a reason (1 to 200 characters); for a
   * party ticket, `people` of it (1 to what remains; absent: one, as a spec scanner's scan).
   */
  manualCheckIn(tid: string, reason: string, people?: number): Promise<ManualCheckInOutcome | StaffLocked>;
  /** Unlocks staff functions with the staff PIN (4 to 8 digits), for a short idle time. */
  unlockStaff(pin: string): Promise<StaffUnlockResult>;
  /** Ends the staff unlock now ("Lock"). */
  lockStaff(): Promise<KioskState>;
  /** Sets or changes the staff PIN (4 to 8 digits). Open while no PIN is set; staff only once one is. */
  setStaffPin(pin: string, person?: StaffPersonRequest): Promise<SetStaffPinResult>;
  /** Removes a crew member's own PIN (technician; docs/kiosk.md "Staff PIN"). */
  removeStaffPin(staffId: string): Promise<RemoveStaffPinResult>;
  /** The screens' languages. Staff only. */
  setLanguage(primary: LanguageCode, secondary: LanguageCode | null): Promise<SetLanguageResult>;
  /** Leaves kiosk mode (full screen, no menu) where the host has one: the Electron app. Staff only. */
  leaveKioskMode(): Promise<LeaveKioskModeResult>;
  getState(): Promise<KioskState>;
  setScannerName(name: string): Promise<KioskState>;
  /** Done: the attention verdict on screen has been read; the door takes scans again (docs/kiosk.md "Attention notes"). */
  attentionDone(): Promise<KioskState | StaffLocked>;
  /**
   * A supervisor's override of the attention prompt holding the door (docs/kiosk.md "Attention notes"): the hold
   * ends as with Done, and the kiosk's audit log records the override with the staff id. Supervisor and up.
   */
  overrideAttention(): Promise<KioskState | StaffLocked>;
  /** docs/kiosk.md "ID checks": the steward saw the ID match; the waiting scan is checked in with `id_checked` and who. */
  confirmIdCheck(): Promise<ScanResult | StaffLocked>;
  /** docs/kiosk.md "ID checks": the ID does not match: refused `id_check_failed`, audited with the staff id; nothing is sent. */
  denyIdCheck(): Promise<ScanResult | StaffLocked>;
  /** A supervisor admits the waiting scan on their own authority, audited as an override with their staff id. */
  overrideIdCheck(): Promise<ScanResult | StaffLocked>;
  /** docs/kiosk.md "Party tickets": `people` of the waiting party come in now (1 to remaining); they are checked in. */
  chooseParty(people: number): Promise<ScanResult | StaffLocked>;
  /** docs/kiosk.md "Party tickets": nobody comes in; the waiting scan is dropped, nothing is checked in. */
  cancelParty(): Promise<ScanResult | StaffLocked>;
  /** The details of a recent verdict, by its decided_at (docs/kiosk.md "Verdict details"). Steward and up. */
  verdictDetails(decidedAt: IsoDateTime): Promise<VerdictDetailsResult>;
  /** docs/kiosk.md "Handouts": one tap: `item` of a recent ADMIT or HANDOUT verdict (by its decided_at) handed over. */
  giveHandout(decidedAt: IsoDateTime, item: string): Promise<GiveHandoutResult>;
  /** Makes this kiosk an entry or an exit gate. Staff only. */
  setDirection(direction: GateDirection): Promise<KioskState | StaffLocked>;
  /** Undoes a recent check-in of the ticket (within the annul window), with the reason. Staff only. */
  annul(tid: string, reason: string): Promise<AnnulResult | StaffLocked>;
  /** Checks the kiosk's own hash-chained audit log (for IT, on the Setup screen). Staff only. */
  verifyLog(): Promise<LogCheckResult | StaffLocked>;
  /** Several scanners: map lanes by scanning the calibration code, cancel, or forget them (docs/kiosk.md "Several scanners"). Staff only. */
  configureLanes(request: LanesRequest): Promise<KioskState | StaffLocked>;
  /** Returns the unsubscribe function. */
  onStateChange(listener: (state: KioskState) => void): () => void;
}
