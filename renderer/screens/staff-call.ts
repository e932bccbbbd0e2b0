/**
 * One staff-only call from a settings panel (docs/kiosk.md "Staff PIN"): asked for the PIN first when the
 * staff area is locked, busy while it runs, asked again when the unlock ran out meanwhile (the core answered
 * `staff_locked`), then the new state shown, or a problem in words.
 */
import { attempt } from '../kiosk-bridge.js';
import type { KioskState, StaffLocked } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import type { StaffGate } from './staff.js';

/** What a panel lends the call: its busy flag and problem line, and how it redraws. */
export interface StaffCallPanel {
  busy: boolean;
  problem: string | null;
  render(): void;
  update(state: KioskState): void;
}

/** Runs `call` for `panel` behind `staff`; `again` repeats the whole request once the PIN is given again. */
export function runStaffCall(
  panel: StaffCallPanel,
  staff: StaffGate | null,
  call: () => Promise<KioskState | StaffLocked>,
  again: () => void,
): void {
  const run = (): void => {
    panel.busy = true;
    panel.render();
    void attempt(call).then((result) => {
      panel.busy = false;
      if (result.ok && 'type' in result.value && result.value.type === 'staff_locked') {
        staff?.relock(again, result.value);
        panel.render();
        return;
      }
      panel.problem = result.ok ? null : t('setup.error.failed');
      if (result.ok && !('type' in result.value)) panel.update(result.value);
      else panel.render();
    });
  };
  if (staff) staff.whenUnlocked(run);
  else run();
}
