/** Which check-out moment passed last (docs/protocol.md "Check-out at a set time"): the one function issuer and kiosk share. */
import { describe, expect, it } from 'vitest';
import { lastExitAllMoment, parseExitAllAt, type ExitAllSetting } from '../../../protocol/exit-all.js';

const at = (iso: string): number => Date.parse(iso);
const daily = (time: string, zone: string, since = '2026-01-01T00:00:00Z'): ExitAllSetting => ({ at: time, time_zone: zone, since });

describe('lastExitAllMoment', () => {
  it('a daily time is local to the time zone: today once passed, else yesterday', () => {
    const setting = daily('04:00', 'Europe/Berlin');
    // Summer: Berlin is UTC+2, so 04:00 there is 02:00Z.
    expect(lastExitAllMoment(setting, at('2026-07-12T02:00:00Z'))).toBe(at('2026-07-12T02:00:00Z'));
    expect(lastExitAllMoment(setting, at('2026-07-12T01:59:59Z'))).toBe(at('2026-07-11T02:00:00Z'));
    expect(lastExitAllMoment(setting, at('2026-07-12T23:30:00Z'))).toBe(at('2026-07-12T02:00:00Z'));
    // Winter: UTC+1.
    expect(lastExitAllMoment(setting, at('2026-01-15T12:00:00Z'))).toBe(at('2026-01-15T03:00:00Z'));
  });

  it('across a change of the clocks, and west of UTC past midnight UTC', () => {
    // Berlin's clocks went forward on 2026-03-29 at 02:00: 04:00 that day is 02:00Z, the day before 03:00Z.
    expect(lastExitAllMoment(daily('04:00', 'Europe/Berlin'), at('2026-03-29T12:00:00Z'))).toBe(at('2026-03-29T02:00:00Z'));
    expect(lastExitAllMoment(daily('04:00', 'Europe/Berlin'), at('2026-03-29T01:00:00Z'))).toBe(at('2026-03-28T03:00:00Z'));
    // 23:30 in New York (UTC-4 in July) is 03:30Z the next day.
    expect(lastExitAllMoment(daily('23:30', 'America/New_York'), at('2026-07-12T04:00:00Z'))).toBe(at('2026-07-12T03:30:00Z'));
    expect(lastExitAllMoment(daily('23:30', 'America/New_York'), at('2026-07-12T03:00:00Z'))).toBe(at('2026-07-11T03:30:00Z'));
  });

  it('a moment applies once passed; nothing from before the setting was made', () => {
    const once: ExitAllSetting = { at: '2026-07-12T04:00:00Z', time_zone: 'UTC', since: '2026-07-01T00:00:00Z' };
    expect(lastExitAllMoment(once, at('2026-07-12T03:59:59Z'))).toBeNull();
    expect(lastExitAllMoment(once, at('2026-07-20T00:00:00Z'))).toBe(at('2026-07-12T04:00:00Z'));
    expect(lastExitAllMoment({ ...once, since: '2026-07-12T05:00:00Z' }, at('2026-07-20T00:00:00Z'))).toBeNull();
    expect(lastExitAllMoment(daily('04:00', 'UTC', '2026-07-12T10:00:00Z'), at('2026-07-12T12:00:00Z'))).toBeNull();
    expect(lastExitAllMoment(daily('04:00', 'UTC', '2026-07-12T10:00:00Z'), at('2026-07-13T04:00:00Z'))).toBe(at('2026-07-13T04:00:00Z'));
    expect(lastExitAllMoment(null, at('2026-07-13T04:00:00Z'))).toBeNull();
  });
});

describe('parseExitAllAt', () => {
  it('takes HH:MM, an RFC 3339 moment (kept in UTC) or none, and says what is wrong otherwise', () => {
    expect(parseExitAllAt('04:00')).toEqual({ ok: true, at: '04:00' });
    expect(parseExitAllAt('2026-07-12T06:00:00+02:00')).toEqual({ ok: true, at: '2026-07-12T04:00:00Z' });
    expect(parseExitAllAt('none')).toEqual({ ok: true, at: null });
    for (const bad of ['24:00', '4:00', '2026-07-12', '2026-07-12T04:00:00', 'tomorrow', '']) {
      const parsed = parseExitAllAt(bad);
      expect(parsed.ok, bad).toBe(false);
    }
  });
});
