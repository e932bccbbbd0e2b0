/**
 * Door operations, the project's extension of the protocol (docs/protocol.md
 * "Door operations"): exits and re-entry, annulment, occupancy and capacity,
 * offline exposure policies and the scanner heartbeat. Every field here is
 * optional on the wire: a scanner that knows only the spec never sends them,
 * and its answers are the spec's.
 */
import type { ScannerRights } from './access.js';
import type { Attention } from './attention.js';
import type { IdCheck } from './id-check.js';
import type { PartyState } from './party.js';
import type { Handout } from './handouts.js';
import type { EntryPolicy, GateDirection } from './admission-modes.js';
import type { CheckInRules, RuleRefusal } from './check-in-rules.js';
import type { CheckInRequest, CheckInResponse, DiscoveryDocument, IssuerEndpoints, IsoDateTime, TicketStatus } from './types.js';
import type { StaffActionReport } from './staff-actions.js';

/** What a scan at the door is. Absent in a request: an entry under the spec's rules. */
export const SCAN_ACTIONS = ['entry', 'exit', 'annul'] as const;
export type ScanAction = (typeof SCAN_ACTIONS)[number];

export { ENTRY_POLICIES, GATE_DIRECTIONS, type EntryPolicy, type GateDirection } from './admission-modes.js';

/** The statuses the extension adds to CheckInResponse; only ever sent to a request that set `action`. */
export const DOOR_STATUSES = [
  'venue_full',
  'exited',
  'not_inside',
  'annulled',
  'not_checked_in',
  'rule_refused',
  'party_exceeded',
] as const;
export type DoorStatus = (typeof DOOR_STATUSES)[number];

/** A ticket's admission state after the request (CheckInTicket `presence`). */
export type Presence = 'inside' | 'outside' | 'annulled' | null;

/** Longest accepted annulment reason. */
export const MAX_REASON_LENGTH = 200;

/** The check-in request with the extension's fields. */
export interface DoorCheckInRequest extends CheckInRequest {
  action?: ScanAction;
  /** The kiosk let the person through (or out) before it had the issuer's answer. */
  admitted_offline?: boolean;
  /** Why a check-in is annulled (`annul` only). */
  reason?: string;
  /** Who at the door (docs/protocol.md "Check-in request: who at the door"): a staff id under the label rules. */
  staff_id?: string;
  /** A tstaff1. staff badge shown at the kiosk for this action; the issuer checks it and records its sid. */
  staff_badge?: string;
  /** An entry made by hand from a ticket search, and why (docs/protocol.md "Ticket search"). */
  manual_reason?: string;
  /** docs/protocol.md "ID checks (project extension)": the steward checked the holder's ID (staff_id says who). */
  id_checked?: boolean;
  /**
   * docs/protocol.md "Party tickets (project extension)": how many people of a party ticket come in (an entry) or go
   * out (an exit) with this scan, 1 to 1000; absent: one.
   */
  people?: number;
}

export interface Occupancy {
  inside: number;
  capacity: number | null;
}

/** The check-in answer with the extension's fields. */
export interface DoorCheckInResponse extends Omit<CheckInResponse, 'status' | 'ticket'> {
  status: CheckInResponse['status'] | DoorStatus;
  ticket: CheckInResponse['ticket'] & { presence?: Presence };
  /** Entry and exit answers for an event with a capacity. */
  occupancy?: Occupancy;
  /** `rule_refused`: the check-in rule that refused the entry, in words (docs/protocol.md "Check-in rules"). */
  rule?: RuleRefusal;
  /** `annulled` answers: the issuer's signed annulment receipt, `tann1.` (docs/protocol.md "Annulment receipt"). */
  annulment_receipt?: string;
  /** docs/protocol.md "Attention notes (project extension)": only when a flag or a note applies. */
  attention?: Attention;
  /** docs/protocol.md "ID checks (project extension)": only when the ticket's type asks for an ID check. */
  id_check?: IdCheck;
  /** docs/protocol.md "Party tickets (project extension)": only for a ticket that admits more than one person. */
  party?: PartyState;
  /** docs/protocol.md "Handouts (project extension)": only when the ticket has items. */
  handouts?: Handout[];
}

/** The discovery document with the heartbeat endpoint (an extra field spec scanners ignore). */
export interface DoorDiscoveryDocument extends Omit<DiscoveryDocument, 'endpoints'> {
  endpoints: IssuerEndpoints & {
    scanner_heartbeat?: string;
    scanner_revocations?: string;
    scanner_notes?: string;
    ticket_handouts?: string;
  };
}

/** TicketStatus with `presence` for a ticket scanned out or annulled. */
export interface DoorTicketStatus extends TicketStatus {
  presence?: 'outside' | 'annulled';
  /** docs/protocol.md "Attention notes (project extension)": only when a flag or a note applies. */
  attention?: Attention;
  /** docs/protocol.md "ID checks (project extension)": only when the ticket's type asks for an ID check. */
  id_check?: IdCheck;
  /** docs/protocol.md "Party tickets (project extension)": only for a ticket that admits more than one person. */
  party?: PartyState;
  /** docs/protocol.md "Handouts (project extension)": only when the ticket has items. */
  handouts?: Handout[];
}

export const OFFLINE_POLICY_KINDS = ['online-only', 'offline', 'capped'] as const;
export type OfflinePolicyKind = (typeof OFFLINE_POLICY_KINDS)[number];

/** One ticket type's offline exposure policy. `per_hour` only for `capped`. */
export interface OfflineExposurePolicy {
  policy: OfflinePolicyKind;
  per_hour?: number;
}

export interface OfflinePolicies {
  default: OfflineExposurePolicy;
  by_type: Record<string, OfflineExposurePolicy>;
}

/** The key ticket types are counted under; tickets without a type count under ''. */
export const typeKey = (ticketType: string | undefined | null): string => ticketType ?? '';

/** The policy a ticket is judged by: its own type's, else the event default. */
export function policyForType(policies: OfflinePolicies, ticketType: string | undefined | null): OfflineExposurePolicy {
  return policies.by_type[typeKey(ticketType)] ?? policies.default;
}

export const DEFAULT_OFFLINE_POLICIES: OfflinePolicies = { default: { policy: 'offline' }, by_type: {} };

export type OccupancyLevel = 'open' | 'nearly_full' | 'full';

/** docs/protocol.md "Occupancy": nearly full from 90%, full at 100% of the capacity. */
export function occupancyLevel(inside: number, capacity: number | null): OccupancyLevel {
  if (capacity === null) return 'open';
  if (inside >= capacity) return 'full';
  return inside * 10 >= capacity * 9 ? 'nearly_full' : 'open';
}

export interface HeartbeatRequest {
  scanner_id: string;
  direction?: GateDirection;
  pending_scans?: number;
  /** Offline admissions not yet synced, per ticket type ('' for none). */
  offline_exposure?: Record<string, number>;
  /** Offline admissions in the last hour, per ticket type. */
  offline_last_hour?: Record<string, number>;
  /**
   * The head of the kiosk's own hash-chained log (docs/protocol.md "Scanner heartbeat", docs/kiosk.md "The
   * kiosk's audit log"): its last record's position and hash. The issuer keeps every head it is told, so a
   * log rewritten afterwards contradicts one of them.
   */
  log_head?: LogHeadReport;
  /**
   * Issuer time minus kiosk time in whole ms, from the `Date` header of the issuer's answers (docs/protocol.md
   * "Scanner heartbeat", docs/kiosk.md "The kiosk's clock"); absent before the first. The issuer keeps the last one,
   * and its dashboard flags a kiosk off by more than 60 s.
   */
  clock_offset_ms?: number;
  /**
   * The kiosk's staff records not yet acknowledged, oldest first, at most 200 (docs/protocol.md "Scanner
   * heartbeat", docs/kiosk.md "The kiosk's audit log"): who unlocked, overrode, annulled, was refused.
   */
  staff_actions?: StaffActionReport[];
}

/** A chain head as a kiosk reports it: position 0 with 64 zeros for an empty log. */
export interface LogHeadReport {
  position: number;
  /** 64 lowercase hex characters. */
  hash: string;
}

export interface HeartbeatResponse {
  eid: string;
  entry_policy: EntryPolicy;
  capacity: number | null;
  occupancy: Occupancy & { level: OccupancyLevel };
  offline_policies: OfflinePolicies;
  /** What this scanner's key may do: its role in the access table, in wire form (protocol/access.ts rightsOf). */
  rights: ScannerRights;
  /** The key's role in the access table (docs/protocol.md "Scanner heartbeat"); absent from an older issuer. */
  role?: string;
  server_time: IsoDateTime;
  /**
   * The event's check-in rules (docs/protocol.md "Check-in rules"), which the kiosk applies offline. Always
   * sent by this issuer (no rules: an empty list); absent from an older one, which then has none.
   */
  check_in_rules?: CheckInRules;
  /**
   * Check-out at a set time (docs/protocol.md "Check-out at a set time"): `HH:MM` daily in `exit_all_time_zone`, or
   * an RFC 3339 moment, and when it was set. Absent: the event has none (or the issuer is older).
   */
  exit_all_at?: string;
  exit_all_time_zone?: string;
  exit_all_since?: IsoDateTime;
  /**
   * The highest audit-log position of the request's `staff_actions` that the issuer has stored (now or before);
   * absent when the request carried none (or the issuer is older). The kiosk sends none of those again.
   */
  staff_actions_through?: number;
}
