/** Check-out at a set time at an offline kiosk (docs/kiosk.md "Check-out at a set time"): which admissions still count. */
import { describe, expect, it } from 'vitest';
import type { HeartbeatResponse } from '../../../protocol/door.js';
import { admittedSinceCheckOut, exitAllSetting, insideAfterCheckOut } from '../../../main/kiosk/decide/exit-all.js';

const heartbeat = (extra: Partial<HeartbeatResponse>, receivedAt = '2026-07-12T01:00:00Z') => ({
  received_at: receivedAt,
  response: {
    eid: 'e',
    entry_policy: 'reentry',
    capacity: null,
    occupancy: { inside: 40, capacity: null, level: 'open' },
    offline_policies: { default: { policy: 'offline' }, by_type: {} },
    rights: { annul: false },
    server_time: receivedAt,
    ...extra,
  } as HeartbeatResponse,
});
const nightly = { exit_all_at: '04:00', exit_all_time_zone: 'Europe/Berlin', exit_all_since: '2026-07-01T00:00:00Z' };

describe('an offline kiosk after a check-out at a set time', () => {
  it('counts only its admissions since the last moment (04:00 Berlin = 02:00Z in July)', () => {
    const admissions = ['2026-07-11T20:00:00Z', '2026-07-12T02:30:00Z'];
    expect(admittedSinceCheckOut(heartbeat(nightly), admissions, Date.parse('2026-07-12T01:59:00Z'))).toBe('2026-07-11T20:00:00Z');
    expect(admittedSinceCheckOut(heartbeat(nightly), admissions, Date.parse('2026-07-12T03:00:00Z'))).toBe('2026-07-12T02:30:00Z');
    expect(admittedSinceCheckOut(heartbeat(nightly), admissions.slice(0, 1), Date.parse('2026-07-12T03:00:00Z'))).toBeUndefined();
    expect(admittedSinceCheckOut(heartbeat({}), admissions.slice(0, 1), Date.parse('2026-07-12T03:00:00Z'))).toBe('2026-07-11T20:00:00Z');
  });

  it('shows nobody inside once a moment passed after the last heartbeat', () => {
    expect(insideAfterCheckOut(heartbeat(nightly), Date.parse('2026-07-12T01:30:00Z'))).toBe(40);
    expect(insideAfterCheckOut(heartbeat(nightly), Date.parse('2026-07-12T02:00:00Z'))).toBe(0);
    expect(insideAfterCheckOut(heartbeat(nightly, '2026-07-12T02:05:00Z'), Date.parse('2026-07-12T03:00:00Z'))).toBe(40);
  });

  it('ignores a setting it cannot read: every admission counts', () => {
    expect(exitAllSetting(heartbeat({ ...nightly, exit_all_time_zone: 'Mars/Olympus' }))).toBeNull();
    expect(exitAllSetting(heartbeat({ ...nightly, exit_all_at: '25:00' }))).toBeNull();
    expect(exitAllSetting(heartbeat(nightly))).toEqual({ at: '04:00', time_zone: 'Europe/Berlin', since: '2026-07-01T00:00:00Z' });
  });
});
