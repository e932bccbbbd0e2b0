/**
 * The kiosk's side of the access table (protocol/access.ts, docs/protocol.md
 * "Roles and rights"): who is in front of the kiosk now, and whether a call
 * asks for the staff PIN. Pure; the PIN, its unlock and its lockout are
 * main/kiosk/staff-access.ts.
 */
import { mayCall, type KioskCall, type KioskRole } from '../../../protocol/access.js';

/**
 * docs/kiosk.md "Staff PIN": the kiosk's PIN is the technician's, so it
 * unlocks every staff function (for its idle time), and so does a kiosk
 * without a PIN; anyone else is `anyone`.
 */
export function roleAtKiosk(staff: { pinSet: boolean; unlocked: boolean }): KioskRole {
  return !staff.pinSet || staff.unlocked ? 'technician' : 'anyone';
}

/**
 * docs/kiosk.md "Calibration": a calibration code is acted on only on the
 * Setup screen (no event yet, or a re-enrollment waiting), during a lane
 * mapping a technician started, or while someone who may calibrate is at the
 * kiosk. Anywhere else it is a staff code read at the door: ignored.
 */
export function actsOnCalibration(at: { onSetup: boolean; mappingLanes: boolean; role: KioskRole }): boolean {
  return at.onSetup || at.mappingLanes || mayCall(at.role, CALIBRATE_CALL);
}

/** The row of the access table that calibrating is. */
export const CALIBRATE_CALL: KioskCall = 'calibrate';

/** Whether `call` needs the staff unlock: every call the table does not open to anyone at the door. */
export function needsStaff(call: KioskCall): boolean {
  return !mayCall('anyone', call);
}
