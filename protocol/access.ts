/**
 * Who may do what, in one table (docs/protocol.md "Roles and rights"). A role
 * is who makes a call. The staff roles, each with every power of the one
 * before it and more:
 *
 * - `steward`: scans entries and exits, sees a verdict's details (the
 *   verdict screen's Details, `verdictDetails`);
 * - `supervisor`: also annuls, looks a ticket up, overrides an attention
 *   prompt (`overrideAttention`) or an ID check (`overrideIdCheck`), sets the language and the direction, checks
 *   the audit log;
 * - `technician`: also calibrates, re-enrolls, sets PINs and lanes, leaves
 *   kiosk mode and runs the on-site issuer.
 *
 * At the kiosk the role is who stands in front of it: `anyone` until a staff
 * badge or PIN unlocks a staff role (docs/kiosk.md "Staff PIN"). At the
 * issuer a scanner key has one of the staff roles too, given by its setup code
 * (`scanner setup --role`): the same rows decide what the key may do there.
 *
 * ACCESS has one row per call: the kiosk's page calls (KioskApi in
 * renderer/kiosk-bridge-types.ts) and its other powers, the page's on-site
 * issuer calls, the kiosk window's close, and the issuer's scanner calls. A
 * new power is a new row, or a role added to a row, not a flag threaded
 * through files. The table lists the roles of each row in full: no rule of
 * inheritance is hidden in code.
 *
 * A scanner key's role travels to the kiosk as the heartbeat's `rights` (the
 * spec's form) and `role`; the `can_annul` form of older databases and setup
 * codes is converted here, one function each way.
 */

export const STAFF_ROLES = ['steward', 'supervisor', 'technician'] as const;
/** A member of the crew, as a badge or a PIN names them, and a scanner key's role at the issuer. */
export type StaffRole = (typeof STAFF_ROLES)[number];

export const KIOSK_ROLES = ['anyone', ...STAFF_ROLES] as const;
/** Who is in front of the kiosk: anyone at the door, or a staff role unlocked. */
export type KioskRole = (typeof KIOSK_ROLES)[number];

/**
 * A scanner key's role: a staff role, or `handout`, a handout station's (docs/protocol.md "Handouts (project
 * extension)"): it records handouts and reads a ticket's status, and never admits.
 */
export const SCANNER_KEY_ROLES = [...STAFF_ROLES, 'handout'] as const;
/** What a scanner key may do at the issuer. */
export type ScannerKeyRole = (typeof SCANNER_KEY_ROLES)[number];

export type Role = KioskRole | 'handout';

/** A scanner key's rights as the issuer tells its kiosk (heartbeat `rights`, docs/protocol.md "Scanner heartbeat"). */
export interface ScannerRights {
  annul: boolean;
}

export interface AccessRow {
  /** The roles that may make the call. */
  roles: readonly Role[];
  /** The call in words, for the log line of a refusal ("Staff action refused: annul needs a supervisor."). */
  label: string;
}

const EVERYONE = ['anyone', 'steward', 'supervisor', 'technician'] as const;
const STEWARD_UP = ['steward', 'supervisor', 'technician'] as const;
/** A scanner key of a steward and up, or a handout station's. */
const STEWARD_UP_OR_STATION = ['steward', 'supervisor', 'technician', 'handout'] as const;
const SUPERVISOR_UP = ['supervisor', 'technician'] as const;
const TECHNICIAN = ['technician'] as const;

/** The one table: every call, and the roles that may make it. */
export const ACCESS = {
  // The kiosk's page calls (KioskApi), by name; both hosts serve them (main/host/kiosk-calls.ts).
  scan: { roles: EVERYONE, label: 'scan' },
  getState: { roles: EVERYONE, label: 'read the state' },
  setScannerName: { roles: EVERYONE, label: 'name the scanner' },
  cancelReEnroll: { roles: EVERYONE, label: 'cancel re-enrolling' },
  unlockStaff: { roles: EVERYONE, label: 'unlock staff functions' },
  lockStaff: { roles: EVERYONE, label: 'lock staff functions' },
  // docs/kiosk.md "Attention notes": whoever runs the door taps Done; a locked PIN must not keep the door held.
  attentionDone: { roles: EVERYONE, label: 'finish an attention note' },
  // docs/kiosk.md "Verdict details": a recent verdict's facts and who overrode its prompt, behind the verdict's Details.
  verdictDetails: { roles: STEWARD_UP, label: "see a verdict's details" },
  lookupStatus: { roles: SUPERVISOR_UP, label: 'status lookup' },
  // docs/kiosk.md "Finding a ticket": the issuer's ticket search, and a found ticket checked in by hand with a reason.
  searchTickets: { roles: SUPERVISOR_UP, label: 'search tickets' },
  manualCheckIn: { roles: SUPERVISOR_UP, label: 'check in by hand' },
  setLanguage: { roles: SUPERVISOR_UP, label: 'set the language' },
  setDirection: { roles: SUPERVISOR_UP, label: 'change direction' },
  annul: { roles: SUPERVISOR_UP, label: 'annul' },
  // docs/kiosk.md "Attention notes": a supervisor releases a held door without Done, recorded as an override with the staff id.
  overrideAttention: { roles: SUPERVISOR_UP, label: 'override an attention prompt' },
  // docs/kiosk.md "ID checks": whoever runs the door answers the ID prompt (Confirm or Deny, recorded with the staff id
  // when someone is unlocked); a supervisor may admit without the check, recorded as an override with their staff id.
  confirmIdCheck: { roles: EVERYONE, label: 'confirm an ID check' },
  denyIdCheck: { roles: EVERYONE, label: 'deny an ID check' },
  overrideIdCheck: { roles: SUPERVISOR_UP, label: 'override an ID check' },
  // docs/kiosk.md "Party tickets": whoever runs the door says how many of a party come in now (or none).
  chooseParty: { roles: EVERYONE, label: 'admit part of a party' },
  cancelParty: { roles: EVERYONE, label: 'cancel a party prompt' },
  // docs/kiosk.md "Handouts": whoever runs the door confirms a handout with one tap (the staff id recorded when unlocked).
  giveHandout: { roles: EVERYONE, label: 'give a handout' },
  verifyLog: { roles: SUPERVISOR_UP, label: 'audit log check' },
  setStaffPin: { roles: TECHNICIAN, label: 'set the staff PIN' },
  removeStaffPin: { roles: TECHNICIAN, label: 'remove a staff PIN' },
  confirmReEnroll: { roles: TECHNICIAN, label: 're-enroll' },
  calibrate: { roles: TECHNICIAN, label: 'calibrate a scanner' },
  resetCalibration: { roles: TECHNICIAN, label: 'reset calibration' },
  leaveKioskMode: { roles: TECHNICIAN, label: 'leave kiosk mode' },
  configureLanes: { roles: TECHNICIAN, label: 'configure lanes' },
  // The page's on-site issuer panel (OnsiteIssuerApi, main/electron/onsite-issuer-calls.ts).
  'onsiteIssuer.status': { roles: EVERYONE, label: 'on-site issuer status' },
  'onsiteIssuer.init': { roles: TECHNICIAN, label: 'on-site issuer init' },
  'onsiteIssuer.start': { roles: TECHNICIAN, label: 'on-site issuer start' },
  'onsiteIssuer.stop': { roles: TECHNICIAN, label: 'on-site issuer stop' },
  'onsiteIssuer.openAdmin': { roles: TECHNICIAN, label: 'on-site issuer openAdmin' },
  'onsiteIssuer.resetAdminToken': { roles: TECHNICIAN, label: 'on-site issuer resetAdminToken' },
  // The Electron window in kiosk mode (main/electron/kiosk-mode.ts).
  closeKioskWindow: { roles: TECHNICIAN, label: 'close the kiosk window' },
  // The issuer's scanner calls, each behind a scanner key of a staff role (docs/protocol.md "Door operations").
  'issuer.entry': { roles: STEWARD_UP, label: 'check in' },
  'issuer.exit': { roles: STEWARD_UP, label: 'scan out' },
  'issuer.annul': { roles: SUPERVISOR_UP, label: 'annul' },
  'issuer.status': { roles: STEWARD_UP_OR_STATION, label: 'ticket status' },
  // docs/protocol.md "Handouts (project extension)": whoever scans at the door records a handout; a handout station only that.
  'issuer.handout': { roles: STEWARD_UP_OR_STATION, label: 'record a handout' },
  // docs/protocol.md "Ticket search": by name, short id or tid, and a manual check-in with a reason.
  'issuer.search': { roles: SUPERVISOR_UP, label: 'search tickets' },
  'issuer.manualEntry': { roles: SUPERVISOR_UP, label: 'check in by hand' },
  'issuer.heartbeat': { roles: STEWARD_UP_OR_STATION, label: 'heartbeat' },
  'issuer.revocations': { roles: STEWARD_UP_OR_STATION, label: 'revocation list' },
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

// --- roles as text, and a scanner key's stored and wire forms ---------------

export function isStaffRole(value: unknown): value is StaffRole {
  return typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);
}

export function isScannerKeyRole(value: unknown): value is ScannerKeyRole {
  return typeof value === 'string' && (SCANNER_KEY_ROLES as readonly string[]).includes(value);
}

/** The role → the heartbeat's `rights` (the spec's wire form). */
export function rightsOf(role: ScannerKeyRole): ScannerRights {
  return { annul: mayCall(role, 'issuer.annul') };
}

/**
 * The heartbeat's `role`, or else its `rights`, → the key's role. No answer yet
 * (before the first heartbeat): a steward's key, which may not annul.
 */
export function keyRoleOfRights(rights: ScannerRights | null | undefined, role?: unknown): ScannerKeyRole {
  if (isScannerKeyRole(role)) return role;
  const annul = rights?.annul === true;
  return STAFF_ROLES.find((candidate) => rightsOf(candidate).annul === annul) ?? 'steward';
}

/** The role → the older `can_annul` column and setup-code flag (0 or 1). */
export function storedAnnulFlag(role: ScannerKeyRole): 0 | 1 {
  return rightsOf(role).annul ? 1 : 0;
}

/** The older `can_annul` column → the role (1: a supervisor's key, 0: a steward's). */
export function keyRoleOfStored(canAnnul: 0 | 1): ScannerKeyRole {
  return keyRoleOfRights({ annul: canAnnul === 1 });
}

/** Whether a kiosk whose key has `rights` (and `role`, when the heartbeat names it) may make `call` at the issuer. */
export function rightsAllow(rights: ScannerRights | null | undefined, call: IssuerCall, role?: unknown): boolean {
  return mayCall(keyRoleOfRights(rights, role), call);
}
