/** What the screens say of the kiosk's clock against the issuer's (docs/kiosk.md "The kiosk's clock"). Pure. */
import type { KioskState } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { formatClockTime, type TimeOptions } from './dates.js';

/** Ready's warning when the clock is more than a minute off (the core decides: `clock.warn`); null otherwise. */
export function clockWarningText(state: KioskState): string | null {
  const clock = state.clock;
  if (!clock?.warn || clock.offset_ms === null) return null;
  // offset = issuer time minus kiosk time: negative when the kiosk's clock is ahead.
  return t(clock.offset_ms < 0 ? 'clock.ahead' : 'clock.behind', { offset: offsetText(clock.offset_ms) });
}

/** The Setup screen's line: how far the clock is from the issuer's, and when that was measured. */
export function setupClockLine(state: KioskState, time: TimeOptions = {}): { text: string; warn: boolean } | null {
  const clock = state.clock;
  if (!clock) return null;
  if (clock.offset_ms === null || clock.measured_at === null) return { text: t('setup.clock.unknown'), warn: false };
  const words = { offset: offsetText(clock.offset_ms), time: formatClockTime(clock.measured_at, time) };
  return { text: t(clock.offset_ms < 0 ? 'setup.clock.ahead' : 'setup.clock.behind', words), warn: clock.warn };
}

/**
 * "2 h 05 min", "3 min 20 s", "4 s": whole seconds (the issuer's Date has no finer ones). Past an hour, to the
 * nearest minute: a clock 2 hours ahead measures 7,199 s or 7,200 s by the second the Date header fell in,
 * and both are "2 h 00 min" (floored, the first read "1 h 59 min").
 */
export function offsetText(offsetMs: number): string {
  const seconds = Math.round(Math.abs(offsetMs) / 1000);
  if (seconds >= 3600) {
    const totalMinutes = Math.round(seconds / 60);
    return `${Math.floor(totalMinutes / 60)} h ${String(totalMinutes % 60).padStart(2, '0')} min`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes > 0) return `${minutes} min ${seconds % 60} s`;
  return `${seconds} s`;
}
