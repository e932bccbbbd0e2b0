/**
 * The admin dashboard's API (/admin/api/*, docs/issuer.md "Admin dashboard")
 * as types: what issuer/routes/admin/*.ts answer, what issuer/services/dashboard.ts
 * computes, and what the dashboard page (dashboard/) sends and reads. The one
 * module both sides import. Types only (no runtime code, no Node import), so
 * the browser build imports it without pulling in Node. The JSON schemas the
 * routes declare are in issuer/routes/admin/schemas.ts.
 */
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
  scanners: ScannerView[];
  alerts: { counts: AlertCounts; recent: AlertView[] };
  /** False while the counts are still catching up with a large database (right after the server started). */
  complete: boolean;
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
  revoked_at: string | null;
  revoke_reason: string | null;
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

export interface RevokeScannerResult {
  api_key_id: string;
  status: 'revoked';
}
