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

/** Whether `call` needs the staff unlock: every call the table does not open to anyone at the door. */
export function needsStaff(call: KioskCall): boolean {
  return !mayCall('anyone', call);
}
