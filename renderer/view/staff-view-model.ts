/**
 * A staff call refused (docs/kiosk.md "Staff PIN"): whether an answer is that refusal, and, when it was for the role
 * of who is unlocked, what it says in the kiosk's language.
 * The kiosk's StaffLocked answer names the role needed and who is unlocked; its English `message` is for logs. Pure.
 */
import type { StaffLocked } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';

/** "Not allowed for Kim (steward): this needs the role supervisor. …"; null when no one is unlocked (the PIN is what is missing). */
export function staffLockedText(locked: StaffLocked): string | null {
  if (!locked.unlocked_as) return null;
  return t('staff.needs_role', {
    name: locked.unlocked_as.name,
    role: t(`staff.role.${locked.unlocked_as.role}`),
    needed: t(`staff.role.${locked.needs ?? 'technician'}`),
  });
}

/** A staff-only call refused because staff functions are locked (docs/kiosk.md "Staff PIN"). */
export function isStaffLocked(value: object): value is StaffLocked {
  return 'type' in value && value.type === 'staff_locked';
}
