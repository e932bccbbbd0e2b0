/**
 * Who may do what, in one table (docs/protocol.md "Roles and rights"). A role
 * is who makes a call:
 *
 * - at the kiosk, `anyone` at the door, or `staff`, who unlocked the kiosk
 *   with its staff PIN (a kiosk without a PIN treats everyone as staff:
 *   docs/kiosk.md "Staff PIN");
 * - at the issuer, a scanner key, with the annul right (`annulling_scanner`,
 *   `scanner setup --can-annul`) or without it (`scanner`).
 *
 * ACCESS has one row per call: the kiosk's page calls (KioskApi in
 * renderer/kiosk-bridge-types.ts), the page's on-site issuer calls, the
 * kiosk window's close, and the issuer's scanner calls. A new power is a new
 * role in a row, not a flag threaded through files.
 *
 * A scanner key's role is stored as the `can_annul` column of its setup code
 * and key, and travels to the kiosk as the heartbeat's `rights`: those forms
 * stay as they are, converted here, one function each way.
 */

export const KIOSK_ROLES = ['anyone', 'staff'] as const;
/** Who is in front of the kiosk. */
export type KioskRole = (typeof KIOSK_ROLES)[number];

export const SCANNER_KEY_ROLES = ['scanner', 'annulling_scanner'] as const;
/** What a scanner key may do at the issuer. */
export type ScannerKeyRole = (typeof SCANNER_KEY_ROLES)[number];

export type Role = KioskRole | ScannerKeyRole;

/** A scanner key's rights as the issuer tells its kiosk (heartbeat `rights`, docs/protocol.md "Scanner heartbeat"). */
export interface ScannerRights {
  annul: boolean;
}

export interface AccessRow {
  /** The roles that may make the call. */
  roles: readonly Role[];
  /** The call in words, for the log line of a refusal ("Staff action refused: annul needs the staff PIN."). */
  label: string;
}

/** The one table: every call, and the roles that may make it. */
export const ACCESS = {
  // The kiosk's page calls (KioskApi), by name; both hosts serve them (main/host/kiosk-calls.ts).
  scan: { roles: ['anyone', 'staff'], label: 'scan' },
  getState: { roles: ['anyone', 'staff'], label: 'read the state' },
  setScannerName: { roles: ['anyone', 'staff'], label: 'name the scanner' },
  cancelReEnroll: { roles: ['anyone', 'staff'], label: 'cancel re-enrolling' },
  unlockStaff: { roles: ['anyone', 'staff'], label: 'unlock staff functions' },
  lockStaff: { roles: ['anyone', 'staff'], label: 'lock staff functions' },
  setStaffPin: { roles: ['staff'], label: 'set the staff PIN' },
  lookupStatus: { roles: ['staff'], label: 'status lookup' },
  confirmReEnroll: { roles: ['staff'], label: 're-enroll' },
  resetCalibration: { roles: ['staff'], label: 'reset calibration' },
  calibrate: { roles: ['staff'], label: 'calibrate' },
  setLanguage: { roles: ['staff'], label: 'set the language' },
  leaveKioskMode: { roles: ['staff'], label: 'leave kiosk mode' },
  setDirection: { roles: ['staff'], label: 'change direction' },
  annul: { roles: ['staff'], label: 'annul' },
  verifyLog: { roles: ['staff'], label: 'audit log check' },
  configureLanes: { roles: ['staff'], label: 'configure lanes' },
  // The page's on-site issuer panel (OnsiteIssuerApi, main/electron/onsite-issuer-calls.ts).
  'onsiteIssuer.status': { roles: ['anyone', 'staff'], label: 'on-site issuer status' },
  'onsiteIssuer.init': { roles: ['staff'], label: 'on-site issuer init' },
  'onsiteIssuer.start': { roles: ['staff'], label: 'on-site issuer start' },
  'onsiteIssuer.stop': { roles: ['staff'], label: 'on-site issuer stop' },
  'onsiteIssuer.openAdmin': { roles: ['staff'], label: 'on-site issuer openAdmin' },
  'onsiteIssuer.resetAdminToken': { roles: ['staff'], label: 'on-site issuer resetAdminToken' },
  // The Electron window in kiosk mode (main/electron/kiosk-mode.ts).
  closeKioskWindow: { roles: ['staff'], label: 'close the kiosk window' },
  // The issuer's scanner calls, each behind a scanner key (docs/protocol.md "Door operations").
  'issuer.entry': { roles: ['scanner', 'annulling_scanner'], label: 'check in' },
  'issuer.exit': { roles: ['scanner', 'annulling_scanner'], label: 'scan out' },
  'issuer.annul': { roles: ['annulling_scanner'], label: 'annul' },
  'issuer.status': { roles: ['scanner', 'annulling_scanner'], label: 'ticket status' },
  'issuer.heartbeat': { roles: ['scanner', 'annulling_scanner'], label: 'heartbeat' },
  'issuer.revocations': { roles: ['scanner', 'annulling_scanner'], label: 'revocation list' },
} as const satisfies Record<string, AccessRow>;

export type AccessCall = keyof typeof ACCESS;
/** The calls a scanner key makes at the issuer. */
export type IssuerCall = Extract<AccessCall, `issuer.${string}`>;
/** The calls made at the kiosk: its page calls, the on-site issuer panel's, the window's close. */
export type KioskCall = Exclude<AccessCall, IssuerCall>;

/** The issuer call each check-in `action` is (absent: an entry). */
export const CHECK_IN_CALLS = { entry: 'issuer.entry', exit: 'issuer.exit', annul: 'issuer.annul' } as const satisfies Record<
  string,
  IssuerCall
>;

export function mayCall(role: Role, call: AccessCall): boolean {
  return (ACCESS[call].roles as readonly Role[]).includes(role);
}

/** The call in words, as refusals log it. */
export function callLabel(call: AccessCall): string {
  return ACCESS[call].label;
}

/** Every call `role` may make, in table order. */
export function callsOf(role: Role): AccessCall[] {
  return (Object.keys(ACCESS) as AccessCall[]).filter((call) => mayCall(role, call));
}

// --- a scanner key's role and its stored and wire forms ---------------------

/** The role → the heartbeat's `rights` (wire form). */
export function rightsOf(role: ScannerKeyRole): ScannerRights {
  return { annul: mayCall(role, 'issuer.annul') };
}

/** The heartbeat's `rights` → the role; no rights known yet (before the first heartbeat): a key without the annul right. */
export function keyRoleOfRights(rights: ScannerRights | null | undefined): ScannerKeyRole {
  const annul = rights?.annul === true;
  return SCANNER_KEY_ROLES.find((role) => rightsOf(role).annul === annul) ?? 'scanner';
}

/** The role → the `can_annul` column of a setup code and a key (stored form). */
export function storedAnnulFlag(role: ScannerKeyRole): 0 | 1 {
  return rightsOf(role).annul ? 1 : 0;
}

/** The `can_annul` column → the role. */
export function keyRoleOfStored(canAnnul: 0 | 1): ScannerKeyRole {
  return keyRoleOfRights({ annul: canAnnul === 1 });
}

/** Whether a kiosk whose key has `rights` may make `call` at the issuer. */
export function rightsAllow(rights: ScannerRights | null | undefined, call: IssuerCall): boolean {
  return mayCall(keyRoleOfRights(rights), call);
}
