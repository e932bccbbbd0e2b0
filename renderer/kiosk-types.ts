/**
 * The kiosk's bridge types as the renderer sees them. DOM-free, types only.
 *
 * WHY A MIRROR: `main/kiosk/kiosk-api.ts` imports `EnrollFailureCode` from
 * `main/kiosk/enrollment.ts`, which pulls the Node-only kiosk core (undici's
 * `RequestInit`, better-sqlite3) into the renderer's DOM type check, where it
 * does not compile. Until kiosk-api.ts imports only protocol types, this file
 * repeats its declarations, and test/unit/renderer/bridge-contract.test.ts
 * fails the root typecheck if the two ever differ. The swap is one edit:
 * replace the body below with re-exports from '../main/kiosk/kiosk-api.js'.
 */
import type { IsoDateTime, OfflinePolicy, TicketStatus, Verdict } from '../protocol/index.js';

export type { IsoDateTime, RefusalReason, TicketState, TicketStatus, Verdict } from '../protocol/index.js';

/** Mirrors ENROLL_FAILURES in main/kiosk/enrollment.ts. */
export type EnrollFailureCode =
  | 'not_a_setup_code'
  | 'unsupported_version'
  | 'bad_issuer_url'
  | 'bad_enroll_url'
  | 'setup_expired'
  | 'issuer_unreachable'
  | 'bad_discovery'
  | 'enroll_url_mismatch'
  | 'token_invalid'
  | 'token_revoked'
  | 'protocol_version_unsupported'
  | 'rate_limited'
  | 'issuer_error'
  | 'scope_mismatch'
  | 'secret_store_unavailable';

export type ConnectionState = 'online' | 'offline' | 'unknown';

export interface SetupSummary {
  iss: string;
  eid: string;
  event_name: string | null;
  gate_id: string | null;
  expires_at: IsoDateTime;
}

export interface DoubleAdmissionView {
  tid: string;
  eid: string;
  holder_name?: string;
  admitted_here_at: IsoDateTime;
  first_checked_in_at: IsoDateTime | null;
}

export interface KioskState {
  enrolled: boolean;
  authorised: boolean;
  scanner: { id: string; name: string };
  issuer: { iss: string; name: string } | null;
  event: { eid: string; name: string; date: IsoDateTime } | null;
  gate_id: string | null;
  api_key_id: string | null;
  key_expires_at: IsoDateTime | null;
  connection: ConnectionState;
  offline_policy: OfflinePolicy;
  pending_scans: number;
  /** Newest first. */
  last_verdicts: Verdict[];
  double_admissions: DoubleAdmissionView[];
  re_enroll_pending: SetupSummary | null;
}

export type ScanResult =
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'enrolled'; issuer_name: string; event_name: string; event_date: IsoDateTime; gate_id: string | null }
  | { type: 'enroll_failed'; code: EnrollFailureCode; message: string }
  | { type: 'confirm_re_enroll'; current: { issuer_name: string; event_name: string; gate_id: string | null }; proposed: SetupSummary; pending_scans: number }
  | { type: 'nothing_to_confirm' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string };

export type StatusLookupResult =
  | { type: 'status'; status: TicketStatus }
  | { type: 'not_found' }
  | { type: 'not_a_ticket' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string }
  | { type: 'unavailable'; message: string };

export interface KioskApi {
  scan(text: string): Promise<ScanResult>;
  confirmReEnroll(): Promise<ScanResult>;
  cancelReEnroll(): Promise<KioskState>;
  lookupStatus(codeOrTid: string): Promise<StatusLookupResult>;
  getState(): Promise<KioskState>;
  setScannerName(name: string): Promise<KioskState>;
  /** Returns the unsubscribe function. */
  onStateChange(listener: (state: KioskState) => void): () => void;
}
