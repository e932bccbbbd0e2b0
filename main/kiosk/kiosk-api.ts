/**
 * What a renderer can ask of the kiosk, whichever host provides it (Electron
 * preload via contextBridge, or the web host over HTTP + server-sent events).
 *
 * Types only, plain JSON data only: everything here crosses a process or
 * network boundary. No API key, enrollment token or other secret ever appears
 * in these types (spec "EnrollResponse": the key is never shown or logged).
 */
import type { IsoDateTime, OfflinePolicy, TicketStatus, Verdict } from '../../protocol/index.js';

export type { EnrollFailureCode } from './enroll-failures.js';
import type { EnrollFailureCode } from './enroll-failures.js';
export type { ScannerDiagnosis, LayoutDifference, Collision, LayoutId } from './calibration.js';
import type { ScannerDiagnosis } from './calibration.js';
export type { ReadDetails, ScanTerminator } from './scanner/scan-event.js';
import type { ReadDetails } from './scanner/scan-event.js';
export type { ScanOrigin } from './repeat-reads.js';
import type { ScanOrigin } from './repeat-reads.js';

export type ConnectionState = 'online' | 'offline' | 'unknown';

/** What a setup code proposes, shown to the operator before acting on it. */
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
  /** When this kiosk admitted the ticket offline. */
  admitted_here_at: IsoDateTime;
  /** When the issuer had first checked it in. */
  first_checked_in_at: IsoDateTime | null;
}

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
  /** Tickets admitted offline here that the issuer says were already used. */
  double_admissions: DoubleAdmissionView[];
  /** A setup code scanned while enrolled, waiting for confirmReEnroll() or cancelReEnroll(). */
  re_enroll_pending: SetupSummary | null;
  /**
   * The scanner read the code of a recent verdict again (a double read): no new
   * check-in, no new verdict. Identifies the verdict by its decided_at and tid.
   */
  read_again: { decided_at: IsoDateTime; tid: string | null; reads: number } | null;
  /** What the last calibration found, and which input paths are translated (docs/kiosk.md "Calibration"). */
  calibration: { diagnosis: ScannerDiagnosis; translating: ScanOrigin[] } | null;
  /** The HID scanner as the kiosk sees it; null when the host does not read HID scanners. */
  hid_scanner: { state: 'connected' | 'disconnected'; reason: string | null; message: string } | null;
  /**
   * The kiosk's own storage (docs/kiosk.md "Storage integrity"): `recovered`
   * after a damaged kiosk.db was set aside at this start, `recovered_earlier`
   * when that happened at an earlier start (kept for IT), `fault` when it is
   * found damaged while running. Null when nothing happened.
   */
  storage: { state: 'recovered' | 'recovered_earlier' | 'fault'; message: string; damaged_file: string | null } | null;
}

export type ScanResult =
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'enrolled'; issuer_name: string; event_name: string; event_date: IsoDateTime; gate_id: string | null }
  | { type: 'enroll_failed'; code: EnrollFailureCode; message: string }
  | { type: 'confirm_re_enroll'; current: { issuer_name: string; event_name: string; gate_id: string | null }; proposed: SetupSummary; pending_scans: number }
  | { type: 'nothing_to_confirm' }
  /** The same code read again within the repeat window: the earlier read's verdict stands (docs/kiosk.md "Double reads"). */
  | { type: 'repeat_read'; reads: number }
  /** The calibration code: what the kiosk learned about the scanner. */
  | { type: 'calibrated'; diagnosis: ScannerDiagnosis }
  | { type: 'not_enrolled'; message: string }
  /** The issuer refused this scanner's key (401/403): re-enroll. Not a verdict on the ticket. */
  | { type: 'scanner_unauthorized'; message: string }
  /** The kiosk's database is damaged: nothing can be recorded; call IT. Not a verdict on the ticket. */
  | { type: 'storage_fault'; message: string };

export type StatusLookupResult =
  | { type: 'status'; status: TicketStatus }
  | { type: 'not_found' }
  | { type: 'not_a_ticket' }
  | { type: 'not_enrolled'; message: string }
  | { type: 'scanner_unauthorized'; message: string }
  /** Offline, rate-limited or an issuer failure: try again later. */
  | { type: 'unavailable'; message: string };

export interface KioskApi {
  /**
   * One scanned string (ticket, setup code, calibration code or garbage) from
   * the window's keyboard wedge → what the door shows. `read` says how it
   * arrived (terminator, keys, timing), for the calibration diagnosis.
   */
  scan(text: string, read?: ReadDetails): Promise<ScanResult>;
  /** Forgets what calibration learned: reads are taken as they arrive again. */
  resetCalibration(): Promise<KioskState>;
  confirmReEnroll(): Promise<ScanResult>;
  cancelReEnroll(): Promise<KioskState>;
  /** Reads a ticket's status without checking it in. Accepts a `tkt1.` code or a tid. */
  lookupStatus(codeOrTid: string): Promise<StatusLookupResult>;
  getState(): Promise<KioskState>;
  setScannerName(name: string): Promise<KioskState>;
  /** Returns the unsubscribe function. */
  onStateChange(listener: (state: KioskState) => void): () => void;
}
