/**
 * The admin dashboard's API (/admin/api/*, docs/issuer.md "Admin dashboard")
 * as types: what issuer/routes/admin/*.ts answer, what issuer/services/dashboard.ts
 * computes, and what the dashboard page (dashboard/) sends and reads. The one
 * module both sides import. Types only (no runtime code, no Node import), so
 * the browser build imports it without pulling in Node. The JSON schemas the
 * routes declare are in issuer/routes/admin/schemas.ts.
 */
import type { StaffRole } from '../protocol/access.js';
import type { Handout, HandoutItem } from '../protocol/handouts.js';
import type { PartyState } from '../protocol/party.js';
import type { TicketState } from '../protocol/types.js';

/** docs/issuer.md "Admin dashboard" → "Alerts". */
export type AlertKind = 'offline_double_admission' | 'merged_double_admission' | 'forged_signature' | 'revoked_ticket' | 'wrong_event';

export interface EventSummary {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
}

/** GET /admin/api/session: who we are talking to, and the rules the dashboard applies. */
export interface SessionInfo {
  issuer: { name: string; base_url: string };
  server_time: string;
  events: EventSummary[];
  rules: {
    /** A scanner is online when its last contact is at most this old. */
    online_window_seconds: number;
    /** An `already_used` answer to a scan that arrives this much later than it was scanned is a possible double admission. */
    late_scan_seconds: number;
    /** How often the page asks for a new overview. */
    refresh_seconds: number;
  };
  /** The certificate fingerprint new setup codes pin (self-signed HTTPS), or null. */
  setup_tls_cert_sha256: string | null;
}

export interface ScannerView {
  api_key_id: string;
  scanner_id: string;
  scanner_name: string | null;
  scanner_platform: string | null;
  gate_id: string | null;
  enrolled_at: string;
  expires_at: string;
  revoked: boolean;
  /** The later of its enrollment and its last check-in request (any answer). */
  last_contact_at: string;
  online: boolean;
  /** Check-in requests from this key (replays not counted). */
  scans: number;
}

export interface AlertView {
  /** The scan_log id: stable, increasing. */
  id: number;
  kind: AlertKind;
  /** When the issuer received the scan. */
  at: string;
  /** When the scanner says it scanned. */
  scanned_at: string | null;
  tid: string | null;
  holder_name: string | null;
  ticket_type: string | null;
  /** For wrong_event: the event the ticket really belongs to. */
  ticket_event_name: string | null;
  gate_id: string | null;
  scanner_id: string | null;
  scanner_name: string | null;
  api_key_id: string | null;
  /** For offline_double_admission: the check-in that got there first. */
  first_check_in: { checked_in_at: string; gate_id: string | null; scanner: string } | null;
  /** at − scanned_at, whole seconds. */
  delay_seconds: number | null;
}

export interface AlertCounts {
  offline_double_admission: number;
  merged_double_admission: number;
  forged_signature: number;
  revoked_ticket: number;
  wrong_event: number;
}

/** GET /admin/api/events/:eid/overview: everything the live page shows. */
export interface EventOverview {
  eid: string;
  generated_at: string;
  totals: { issued: number; checked_in: number; revoked: number };
  by_gate: { gate_id: string | null; checked_in: number }[];
  by_type: { ticket_type: string | null; issued: number; checked_in: number }[];
  scans: {
    /** Check-in requests received in about the last 60 seconds. */
    last_minute: number;
    /** Oldest first; the last entry is the current, unfinished minute. */
    per_minute: { minute: string; scans: number }[];
  };
  /** Entries and exits per minute and gate, for the event so far (the arrivals chart). */
  arrivals: ArrivalsView;
  scanners: ScannerView[];
  alerts: { counts: AlertCounts; recent: AlertView[] };
  /** Door operations (docs/protocol.md "Door operations"): occupancy, the door settings, the kiosks' offline exposure. */
  door: DoorOverview;
  /** Annulled check-ins, newest first: who undid which check-in, and why. */
  activity: {
    annulments: number;
    /** Entries of a type with an ID check let in by a scanner that did not check it (docs/protocol.md "ID checks (project extension)"). */
    id_not_checked: number;
    recent: AnnulmentView[];
  };
  /** False while the counts are still catching up with a large database (right after the server started). */
  complete: boolean;
}

/**
 * Entries and exits per minute and gate (docs/issuer.md "Arrivals chart"), counted from admission_events at
 * the minute they happened at the door (scanned_at): an offline kiosk's queue lands in the minutes it scanned
 * in. Every entry and exit counts, late ones (history) too; annulments do not change them.
 */
export interface ArrivalsView {
  /** Minute starts (ISO), oldest first, one per minute without gaps: from the first minute with an entry or exit to now (or to the last such minute), at most `window_minutes`. */
  minutes: string[];
  /** Per gate (named gates in order, no gate last): counts aligned with `minutes`, and the totals since the first minute. */
  gates: ArrivalsGateView[];
  totals: { entries: number; exits: number };
  /** The minute with the most entries, all gates together (the earliest of equal ones); null before the first entry. */
  peak: { minute: string; entries: number } | null;
  /** The longest series sent; older minutes are left out of `minutes` (never out of the totals or the peak). */
  window_minutes: number;
  /** True when older minutes were left out. */
  truncated: boolean;
}

export interface ArrivalsGateView {
  /** null: scans without a gate. */
  gate_id: string | null;
  entries: number[];
  exits: number[];
  total_entries: number;
  total_exits: number;
}

export type EntryPolicy = 'single' | 'reentry';
export type OccupancyLevel = 'open' | 'nearly_full' | 'full';
export type OfflinePolicyKind = 'online-only' | 'offline' | 'capped';

export interface GateOccupancyView {
  /** null: scans without a gate. */
  gate_id: string | null;
  /** Inside now, counted at the gate of entry. */
  inside: number;
  /** Entries (less the annulled ones) and exits scanned at this gate. */
  entries: number;
  exits: number;
}

export interface OccupancyView {
  inside: number;
  capacity: number | null;
  /** nearly_full from 90% of the capacity, full at 100% (open without a capacity). */
  level: OccupancyLevel;
  entries: number;
  exits: number;
  by_gate: GateOccupancyView[];
}

/** One ticket type's offline exposure policy; ticket_type '' is the event default. */
export interface OfflinePolicyView {
  ticket_type: string;
  policy: OfflinePolicyKind;
  /** Offline admissions per kiosk per rolling hour, for `capped`; else null. */
  per_hour: number | null;
  /** False: this type has no policy of its own and follows the event default. */
  own: boolean;
}

/** One ticket type's offline admissions at one kiosk, against the policy that type is judged by. */
export interface KioskExposureView {
  /** '' for tickets without a type. */
  ticket_type: string;
  /** Admitted offline, not synced yet (the kiosk's last heartbeat). */
  unsynced: number;
  /** Admitted offline in the last hour (the kiosk's last heartbeat). */
  last_hour: number;
  /** Admitted offline and synced to the issuer since the event began. */
  synced: number;
  policy: OfflinePolicyKind;
  per_hour: number | null;
  /** capped and last_hour at or above per_hour: this kiosk now refuses the type while offline. */
  at_cap: boolean;
}

/** A kiosk at the door: what its heartbeat says (docs/protocol.md "Scanner heartbeat"). */
export interface KioskView {
  api_key_id: string;
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  /** From its last heartbeat, else its setup code; null: entry (the default). */
  direction: 'entry' | 'exit' | null;
  /** null: it never sent a heartbeat (a kiosk that predates them). */
  last_heartbeat_at: string | null;
  /** Scans in its offline queue at the last heartbeat; null without one. */
  pending_scans: number | null;
  /** Issuer time minus kiosk time at its last heartbeat, in ms; null: not reported (docs/issuer.md "Kiosk clocks"). */
  clock_offset_ms: number | null;
  /** Its clock is off by more than CLOCK_OFF_MS: the dashboard flags it. */
  clock_off: boolean;
  exposure: KioskExposureView[];
}

export interface DoorOverview {
  entry_policy: EntryPolicy;
  capacity: number | null;
  occupancy: OccupancyView;
  /** The event default first, then each ticket type of the event (its own policy, or the default it follows). */
  offline_policies: OfflinePolicyView[];
  kiosks: KioskView[];
  /** Check-out at a set time (docs/protocol.md "Check-out at a set time"): `at` HH:MM daily in `time_zone`, or a moment; null: none. */
  exit_all: { at: string; time_zone: string } | null;
}

export interface AnnulmentView {
  /** The admission_events id: stable, increasing. */
  id: number;
  /** When it was recorded. */
  at: string;
  tid: string;
  holder_name: string | null;
  ticket_type: string | null;
  /** scanner:<id>, cli or dashboard. */
  actor: string;
  reason: string | null;
  /** Who at the door annulled it: the supervisor badge's sid, or the staff id the kiosk sent; null from the CLI or dashboard. */
  annulled_by: StaffMemberView | null;
  /** Who let the holder in with the entry this undid (the entry's staff id), or null. */
  admitted_by: StaffMemberView | null;
}

/**
 * A staff id as the dashboard shows it (docs/issuer.md "Admin dashboard"): with the badge holder's name and role
 * when the id is a staff badge of the event, else (a kiosk's own staff id, e.g. a per-person PIN's) the id alone.
 */
export interface StaffMemberView {
  staff_id: string;
  name: string | null;
  role: StaffRole | null;
}

export interface TicketView {
  tid: string;
  eid: string;
  event_name: string;
  status: TicketState;
  holder_name: string | null;
  ticket_type: string | null;
  issued_at: string;
  expires_at: string;
  checked_in_at: string | null;
  checked_in_gate_id: string | null;
  /** The scanner that checked it in (its name, else its id). */
  checked_in_by: string | null;
  /** Who at the door made that check-in: the staff id on it, with the badge holder's name and role (docs/issuer.md "Admin dashboard"). */
  checked_in_staff: StaffMemberView | null;
  /** Its admission now (docs/protocol.md "Door operations"): inside, outside (scanned out), annulled, or null (never checked in). */
  presence: 'inside' | 'outside' | 'annulled' | null;
  revoked_at: string | null;
  revoke_reason: string | null;
  /** The ticket's own attention flag and check-in note (docs/protocol.md "Attention notes (project extension)"). */
  attention: boolean;
  note: string | null;
  /** What the door is told: the type's rule and the ticket's together; null when nothing applies. */
  door_attention: { required: boolean; notes: string[] } | null;
  /** Its handout items with what was given, when and where, as its status answer says it (docs/protocol.md "Handouts (project extension)"); null: none. */
  handouts: Handout[] | null;
  /** A party ticket's size and counts (docs/protocol.md "Party tickets (project extension)"); null: one person. */
  party: PartyState | null;
}

/** The dashboard's note form: a field left out keeps its value; `note: null` removes the note. */
export interface TicketAttentionRequest {
  attention?: boolean;
  note?: string | null;
}

export interface TicketAttentionResult {
  tid: string;
  ticket: TicketView;
}

/** A ticket type's rule from the dashboard, as `event ticket-type set`: a field left out keeps its value. */
export interface TicketTypeAttentionRequest {
  ticket_type: string;
  attention?: boolean;
  note?: string | null;
}

/** The event's ticket type rules (`event ticket-type list`), by type. */
export interface TicketTypeRules {
  eid: string;
  types: { ticket_type: string; attention: boolean; note: string | null }[];
  /** Each type's handout items (docs/protocol.md "Handouts (project extension)"), as `event ticket-type list`. */
  handouts: { ticket_type: string; items: HandoutItem[] }[];
}

/** A type's handout items from the dashboard, as `event ticket-type set --handout` takes them ("2 drink voucher"); none: no items. */
export interface TicketTypeHandoutsRequest {
  ticket_type: string;
  handouts: string[];
}

/** Per item of the event: how many are due (its tickets not revoked, by their lists), given and refused (`handouts counts`). */
export interface HandoutCounts {
  eid: string;
  items: { item: string; due: number; given: number; refused: number }[];
}

export interface LookupResult {
  query: string;
  tickets: TicketView[];
  /** True when there may be more matches than shown. */
  truncated: boolean;
}

export interface RevokeTicketRequest {
  reason?: string;
}

export interface RevokeTicketResult {
  tid: string;
  status: 'revoked';
  ticket: TicketView;
}

export interface SetupCodeRequest {
  gate_id?: string;
}

export interface SetupCodeResult {
  setup_qr: string;
  token_id: string;
  eid: string;
  event_name: string;
  gate_id: string | null;
  expires_at: string;
  /** The setup code as an SVG image, a data: URL. */
  qr_image: string;
  tls_cert_sha256: string | null;
}

export interface RevokeSetupResult {
  token_id: string;
  status: 'revoked';
}

/** POST /admin/api/tickets/:tid/annul: undoes the ticket's check-in (`checkins annul`). */
export interface AnnulCheckInRequest {
  reason: string;
}

export interface AnnulCheckInResult {
  tid: string;
  status: 'annulled';
  /** The entry time of the check-in that was undone. */
  checked_in_at: string;
  annulled_at: string;
  /** True when it had been annulled already: nothing changed. */
  already: boolean;
  ticket: TicketView;
}

/** POST /admin/api/tickets/:tid/check-in: a manual check-in with a reason (docs/issuer.md "Admin dashboard"). */
export interface ManualCheckInRequest {
  reason: string;
  /**
   * docs/protocol.md "Party tickets (project extension)": how many of a party ticket come in now, 1-1000, judged
   * as a kiosk's `people` (more than remain: `party_exceeded`, nothing checked in); absent: one person.
   */
  people?: number;
}

export interface ManualCheckInResult {
  tid: string;
  /** The entry's answer, as a kiosk's manual entry gets it: `valid` is checked in, anything else a refusal. */
  status: string;
  /** The answer's party counts (after this entry when it was admitted); null for a ticket of one person. */
  party: PartyState | null;
  ticket: TicketView;
}

/** POST /admin/api/events/:eid/door: the entry policy and capacity (`event update`); an absent field stays. */
export interface DoorSettingsRequest {
  entry_policy?: EntryPolicy;
  /** null: no capacity. */
  capacity?: number | null;
}

export interface DoorSettingsResult {
  eid: string;
  entry_policy: EntryPolicy;
  capacity: number | null;
}

/** POST /admin/api/events/:eid/offline-policies: one type's policy (`event offline-policy`); ticket_type '' is the default. */
export interface OfflinePolicyRequest {
  ticket_type: string;
  policy: OfflinePolicyKind;
  /** Required for `capped`, refused otherwise. */
  per_hour?: number;
}

export interface OfflinePolicyResult {
  eid: string;
  offline_policies: OfflinePolicyView[];
}

/**
 * A staff badge as listed and as its revocation answers (docs/issuer.md "Staff roles and badges"): its times as ISO
 * text, the code left out (it is shown when issued, and kept for that).
 */
export interface StaffBadgeView {
  sid: string;
  eid: string;
  name: string;
  role: string;
  not_before: string;
  expires_at: string;
  issued_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface StaffBadgeList {
  badges: StaffBadgeView[];
}

/**
 * A kiosk's staff record as the dashboard lists it (docs/issuer.md "Admin dashboard"): when, at which kiosk, who
 * (staff id, name, role, how they unlocked; null ids: no one had), what (`event`, the staff `call`, the role a
 * refused call `needs`), and the ticket when there is one.
 */
export interface StaffActionView {
  at: string;
  received_at: string;
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  /** The record's place in the kiosk's chained audit log. */
  position: number;
  event: string;
  staff_id: string | null;
  name: string | null;
  role: string;
  via: string | null;
  call: string | null;
  needs: string | null;
  tid: string | null;
}

/** GET /admin/api/events/:eid/staff-actions: the newest `limit` records, newest first; `truncated` when there are more. */
export interface StaffActionList {
  actions: StaffActionView[];
  limit: number;
  truncated: boolean;
}

/**
 * POST /admin/api/events/:eid/staff-badges: a new badge, as `staff badge issue` (docs/issuer.md "Admin dashboard").
 * Without `not_before` it is valid from now; without `expires_at` until the event's end plus 12 hours.
 */
export interface StaffBadgeIssueRequest {
  name: string;
  /** steward, supervisor or technician (protocol/access.ts). */
  role: string;
  /** ISO 8601 with a time zone. */
  not_before?: string;
  expires_at?: string;
}

/** The new badge with its code, shown this once on the page (the list never carries it). */
export interface StaffBadgeIssued extends StaffBadgeView {
  event_name: string;
  /** The tstaff1. code itself, as `staff badge issue --json` prints it. */
  badge_qr: string;
  /** The code as an SVG image, a data: URL (issuer/admin/qr.ts qrSvgDataUrl). */
  qr_image: string;
}

export interface RevokeScannerResult {
  api_key_id: string;
  status: 'revoked';
}

/**
 * GET /admin/api/webhooks: every webhook endpoint and its health (docs/issuer.md "Webhooks"); never its secret.
 * `last_error` is the latest failure of a delivery not delivered since; null when all went through.
 */
export interface WebhookEndpointView {
  endpoint_id: string;
  url: string;
  /** Event types, space-separated, or '*'. */
  events: string;
  eid: string | null;
  created_at: string;
  disabled_at: string | null;
  pending: number;
  delivered: number;
  dead: number;
  last_delivered_at: string | null;
  last_error: string | null;
  last_status: number | null;
}

export interface WebhookList {
  endpoints: WebhookEndpointView[];
}
