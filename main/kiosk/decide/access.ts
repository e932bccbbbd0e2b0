/**
 * The kiosk's side of the access table (protocol/access.ts, docs/protocol.md
 * "Roles and rights"): who is in front of the kiosk now, and whether a call
 * asks for the staff PIN. Pure; the PIN, its unlock and its lockout are
 * main/kiosk/staff-access.ts.
 */
import { mayCall, STAFF_ROLES, type KioskCall, type KioskRole, type StaffRole } from '../../../protocol/access.js';

/**
 * docs/kiosk.md "Staff PIN": a kiosk without a PIN treats everyone as a
 * technician; otherwise the role of whoever unlocked it (`unlockedAs`: a
 * person's PIN or badge; the kiosk PIN is the technician's fallback) for its
 * idle time, and `anyone` while no one has.
 */
export function roleAtKiosk(staff: { pinSet: boolean; unlocked?: boolean; unlockedAs?: StaffRole | null }): KioskRole {
  if (!staff.pinSet) return 'technician';
  if (staff.unlockedAs) return staff.unlockedAs;
  return staff.unlocked ? 'technician' : 'anyone';
}

/** The first staff role the table lets make `call` (for the refusal's words), or null when none may. */
export function lowestRoleFor(call: KioskCall): StaffRole | null {
  return STAFF_ROLES.find((role) => mayCall(role, call)) ?? null;
}

/**
 * docs/kiosk.md "Calibration": a calibration code is acted on only on the
 * Setup screen (no event yet, or a re-enrollment waiting), during a lane
 * mapping a technician started, or while someone who may calibrate has
 * unlocked the kiosk (`unlockedAs`: a technician's PIN or badge, or the kiosk
 * PIN). A kiosk without any PIN runs its staff functions for anyone who
 * touches the screen, but a code read is not someone at the screen: there it
 * needs a technician's badge too. Anywhere else it is a staff code read at
 * the door: ignored.
 */
export function actsOnCalibration(at: { onSetup: boolean; mappingLanes: boolean; unlockedAs: StaffRole | null }): boolean {
  return at.onSetup || at.mappingLanes || (at.unlockedAs !== null && mayCall(at.unlockedAs, CALIBRATE_CALL));
}

/** The row of the access table that calibrating is. */
export const CALIBRATE_CALL: KioskCall = 'calibrate';

/** Whether `call` needs the staff unlock: every call the table does not open to anyone at the door. */
export function needsStaff(call: KioskCall): boolean {
  return !mayCall('anyone', call);
}
