/**
 * The settings table: every key the kiosk keeps there, the type of its value, and one typed read and save
 * (docs/kiosk.md "Where the kiosk keeps its data"). The non-secret enrollment state, the device identity, the
 * staff PIN's slow hash and lockout (staff-access.ts; docs/kiosk.md "Staff PIN"), the language, the lanes, the
 * last heartbeat, the calibrations, the revocation list's cursor, the last storage recovery.
 *
 * The API key is NOT here (docs/protocol.md "Authentication"): see api-key-store.ts.
 *
 * A value is kept as JSON text, except the few in PLAIN_TEXT, kept as the text itself (as they always were: an
 * older file must read the same).
 */
import type { StaffRole } from '../../../protocol/access.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GateDirection, HeartbeatResponse, IsoDateTime } from '../../../protocol/index.js';
import type { CalibrationResult } from '../decide/calibration.js';
import type { KnownClock } from '../decide/clock.js';
import type { StaffAck } from '../decide/staff-actions.js';
import type { ScanOrigin } from '../decide/repeat-reads.js';
import type { Statements } from './database.js';

export interface Enrollment {
  iss: string;
  issuer_name: string;
  eid: string;
  event_name: string;
  event_date: IsoDateTime;
  gate_id: string | null;
  key_expires_at: IsoDateTime;
  /** Safe to log (docs/protocol.md "Identifiers"); the key itself lives in the secret store. */
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

export interface ScannerIdentity {
  scanner_id: string;
  scanner_name: string;
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

/** A crew member's own PIN (docs/kiosk.md "Staff PIN"): who they are, their role, their PIN's scrypt hash. */
export interface StoredStaffPerson {
  staff_id: string;
  name: string;
  role: StaffRole;
  pin: StoredStaffPin;
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

/** The last heartbeat answer (docs/protocol.md "Scanner heartbeat") and when it came, kept across restarts. */
export interface StoredHeartbeat {
  response: HeartbeatResponse;
  received_at: IsoDateTime;
}

export type StoredCalibrations = Partial<Record<ScanOrigin, CalibrationResult>>;

/** The revocation list's place (docs/kiosk.md "Revocation list"): kept in settings beside the tids. */
export interface RevocationSync {
  iss: string;
  eid: string;
  /** The issuer's cursor to send as `since` next. */
  cursor: string;
  /** When the last sync reached the end of the issuer's list; null while none has. */
  synced_at: IsoDateTime | null;
}

/** Every setting: its key in the table and the type of its value. */
export interface Settings {
  /** A UUID v4 made once and kept forever (docs/protocol.md "Identifiers"). */
  scanner_id: string;
  scanner_name: string;
  /** An enrollment as saved; a record from before a field existed lacks it (readEnrollment fills it in). */
  enrollment: Partial<Enrollment> & Omit<Enrollment, 'tls_cert_sha256' | 'direction'>;
  staff_pin: StoredStaffPin;
  staff_lockout: StaffLockout;
  /** Per-person PINs set by a technician; the kiosk PIN (`staff_pin`) stays the technician's fallback. */
  staff_people: StoredStaffPerson[];
  /**
   * Revoked badge ids as a kiosk of before the event ids kept them (a bare list): still read, as the revocation
   * list's event's, until a sync writes them with their event (store/revocations.ts revokedStaff).
   */
  revoked_badges: string[];
  /** 'true' once a setup code with `pin_required` enrolled this kiosk. */
  staff_pin_required: string;
  language: StoredLanguage;
  /** The lanes mapped on the Setup screen (docs/kiosk.md "Several scanners"; lanes.ts checks the shape). */
  lanes: unknown;
  door_heartbeat: StoredHeartbeat;
  /** What calibration learned, per input path (docs/kiosk.md "Calibration"). */
  scanner_calibrations: StoredCalibrations;
  revocations: RevocationSync;
  /** The last recovery from a damaged file, kept for IT (docs/kiosk.md "Storage integrity"); store-recovery.ts's shape. */
  storage_recovery: unknown;
  /** What the issuer's answers said of this kiosk's clock (docs/kiosk.md "The kiosk's clock"). */
  issuer_clock: KnownClock;
  /**
   * The last staff record the issuer acknowledged, its position and hash (docs/kiosk.md "The kiosk's audit log"): none
   * up to it is sent again. With the hash, a new log (a recovered kiosk.db starts one at 1) is sent from its start.
   */
  staff_actions_acknowledged: StaffAck;
}

export type SettingName = keyof Settings;

/** The settings kept as their text, not as JSON. */
const PLAIN_TEXT: ReadonlySet<SettingName> = new Set<SettingName>(['scanner_id', 'scanner_name', 'staff_pin_required']);

/** A setting's value, or null when it is not set (or set to empty text). */
export function readSetting<K extends SettingName>(sql: Statements, key: K): Settings[K] | null {
  const row = sql.statement('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row?.value) return null;
  return (PLAIN_TEXT.has(key) ? row.value : JSON.parse(row.value)) as Settings[K];
}

export function saveSetting<K extends SettingName>(sql: Statements, key: K, value: Settings[K]): void {
  saveSettingText(sql, key, PLAIN_TEXT.has(key) ? (value as string) : JSON.stringify(value));
}

export function clearSetting(sql: Statements, key: SettingName): void {
  sql.statement('DELETE FROM settings WHERE key = ?').run(key);
}

/** Writes a value's stored text as it is: for rows read back from a damaged file (salvaged-rows.ts). */
export function saveSettingText(sql: Statements, key: string, text: string): void {
  sql.statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, text);
}

/** The device identity; scanner_id is a UUID v4 generated once and kept forever (docs/protocol.md "Identifiers"). */
export function identity(sql: Statements): ScannerIdentity {
  return sql.transaction(() => {
    let scannerId = readSetting(sql, 'scanner_id');
    if (!scannerId) {
      scannerId = randomUUID();
      saveSetting(sql, 'scanner_id', scannerId);
    }
    let scannerName = readSetting(sql, 'scanner_name');
    if (!scannerName) {
      scannerName = hostname() || 'kiosk';
      saveSetting(sql, 'scanner_name', scannerName);
    }
    return { scanner_id: scannerId, scanner_name: scannerName };
  });
}

export function saveScannerName(sql: Statements, name: string): void {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw new Error('a scanner name has 1 to 200 characters');
  saveSetting(sql, 'scanner_name', trimmed);
}

/** The enrollment, with the fields a record from before them lacks filled in (no TLS pin, entry). */
export function readEnrollment(sql: Statements): Enrollment | null {
  const enrollment = readSetting(sql, 'enrollment');
  if (!enrollment) return null;
  return { ...enrollment, tls_cert_sha256: enrollment.tls_cert_sha256 ?? null, direction: enrollment.direction ?? 'entry' };
}
