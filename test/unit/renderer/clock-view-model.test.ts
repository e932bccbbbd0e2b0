/** The kiosk's clock on the screens (docs/kiosk.md "The kiosk's clock"): Ready's warning, the Setup line. */
import { afterEach, describe, expect, it } from 'vitest';
import type { KioskState } from '../../../main/kiosk/kiosk-api.js';
import { setLanguage } from '../../../renderer/messages/format.js';
import { offsetText, setupClockLine } from '../../../renderer/view/clock-view-model.js';
import { readyView } from '../../../renderer/view/ready-view-model.js';
import { ENROLLED_STATE } from './fixtures.js';

const UTC = { timeZone: 'UTC' };
const HOUR_MS = 3_600_000;
const withClock = (offset_ms: number | null, warn: boolean): KioskState => ({
  ...ENROLLED_STATE,
  clock: { offset_ms, warn, measured_at: offset_ms === null ? null : '2026-07-18T20:10:00.000Z' },
});

afterEach(() => {
  setLanguage('en');
});

describe('the clock on the screens', () => {
  it('Ready warns when the kiosk says the clock is off, naming how far and which way', () => {
    expect(readyView(withClock(-2 * HOUR_MS, true), UTC).clockWarningText).toBe(
      "This kiosk's clock is 2 h 00 min ahead of the issuer's. Offline checks go by the issuer's time; ask your technician to set the clock",
    );
    expect(readyView(withClock(95_000, true), UTC).clockWarningText).toContain('1 min 35 s behind');
    expect(readyView(withClock(-3_000, false), UTC).clockWarningText).toBeNull();
    expect(readyView({ ...ENROLLED_STATE }, UTC).clockWarningText).toBeNull();
  });

  it('Setup shows the offset and when it was measured, or that it was not yet', () => {
    expect(setupClockLine(withClock(-2 * HOUR_MS, true), UTC)).toEqual({
      text: "Clock: 2 h 00 min ahead of the issuer's (measured 20:10)",
      warn: true,
    });
    expect(setupClockLine(withClock(400, false), UTC)).toEqual({ text: "Clock: 0 s behind the issuer's (measured 20:10)", warn: false });
    expect(setupClockLine(withClock(null, false), UTC)).toEqual({ text: 'Clock: not compared with the issuer yet', warn: false });
  });

  it('says it in the kiosk language', () => {
    setLanguage('de');
    expect(readyView(withClock(-2 * HOUR_MS, true), UTC).clockWarningText).toContain('2 h 00 min vor');
  });

  it('writes the offset in whole seconds, minutes and hours', () => {
    expect(offsetText(-499)).toBe('0 s');
    // Past an hour, to the nearest minute: the Date header's second makes 2 h ahead measure 7,199 s at times.
    expect(offsetText(-7_199_000)).toBe('2 h 00 min');
    expect(offsetText(7_229_000)).toBe('2 h 00 min');
    expect(offsetText(7_231_000)).toBe('2 h 01 min');
    expect(offsetText(3_599_000)).toBe('59 min 59 s');
    expect(offsetText(59_600)).toBe('1 min 0 s');
    expect(offsetText(-7_260_000)).toBe('2 h 01 min');
  });
});
