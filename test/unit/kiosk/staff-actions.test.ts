/**
 * Which staff records go to the issuer (main/kiosk/decide/staff-actions.ts; docs/kiosk.md "The kiosk's audit log"):
 * where to start, what a record carries (its wire fields only: never a PIN, a code or a key), what an answer
 * acknowledges.
 */
import { describe, expect, it } from 'vitest';
import { acknowledged, sendAfter, staffActionOf, staffActionsToSend, type StaffRecord } from '../../../main/kiosk/decide/staff-actions.js';
import { staffActionProblem } from '../../../protocol/staff-actions.js';

const AT = '2026-12-01T19:00:00.000Z';
const hash = (n: number): string => n.toString(16).padStart(64, '0');
const rec = (position: number, detail: Record<string, unknown>): StaffRecord => ({
  position,
  hash: hash(position),
  at: AT,
  detail: JSON.stringify(detail),
});
const kim = { staff_id: 'stf_kim', name: 'Kim Lee', role: 'supervisor', via: 'badge' };

describe('where the next heartbeat starts', () => {
  it('after the acknowledged record; from the start with none, or when the log holds another record there (a new log)', () => {
    expect(sendAfter(null, null)).toBe(0);
    expect(sendAfter({ position: 12, hash: hash(12) }, hash(12))).toBe(12);
    expect(sendAfter({ position: 12, hash: hash(12) }, hash(99))).toBe(0);
    expect(sendAfter({ position: 12, hash: hash(12) }, null)).toBe(0);
  });
});

describe('a record in the wire form', () => {
  it('carries who, what and the ticket, and nothing else of the detail', () => {
    const report = staffActionOf(
      rec(5, {
        event: 'attention_override',
        tid: 'tid-1',
        decided_at: AT,
        refused_scans: 2,
        at: AT,
        ...kim,
        // Never in a record; and were one there, it would not travel.
        pin: '2222',
        badge_code: 'ey.secret.sig',
        api_key: 'sk_live',
      }),
    );
    expect(report).toEqual({ position: 5, hash: hash(5), at: AT, event: 'attention_override', tid: 'tid-1', ...kim });
    expect(JSON.stringify(report)).not.toMatch(/2222|secret|sk_live/);
  });

  it('a staff call and a refusal with the role it needs; a manual check-in named by `action`', () => {
    expect(staffActionOf(rec(1, { event: 'staff_action', call: 'setDirection', ...kim }))).toMatchObject({ call: 'setDirection' });
    expect(staffActionOf(rec(2, { event: 'staff_refused', call: 'calibrate', needs: 'technician', ...kim }))).toMatchObject({
      event: 'staff_refused',
      call: 'calibrate',
      needs: 'technician',
    });
    expect(staffActionOf(rec(3, { action: 'manual_check_in', tid: 't', reason: 'lost phone', idempotency_key: 'k', ...kim }))).toEqual({
      position: 3,
      hash: hash(3),
      at: AT,
      event: 'manual_check_in',
      tid: 't',
      ...kim,
    });
    expect(staffActionOf(rec(4, { event: 'locked', why: 'lock', staff_id: null, role: 'anyone' }))).toMatchObject({
      staff_id: null,
      name: null,
      via: null,
      role: 'anyone',
    });
  });

  it('sends a text the issuer would refuse as null, so one record never blocks the heartbeats; skips an unknown event', () => {
    const odd = staffActionOf(rec(6, { event: 'unlocked', staff_id: 'has space', name: 'Kim\u202eeeL', role: 'steward', via: 'pin' }))!;
    expect(odd).toMatchObject({ staff_id: null, name: null, role: 'steward' });
    expect(staffActionProblem(odd, 0)).toBeNull();
    expect(staffActionOf(rec(7, { event: 'something_new', ...kim }))).toBeNull();
    expect(staffActionOf({ ...rec(8, kim), detail: 'not json' })).toBeNull();
  });
});

describe('what an answer acknowledges', () => {
  const records = [rec(3, { event: 'unlocked', ...kim }), rec(4, { event: 'future_kind', ...kim }), rec(9, { event: 'locked', ...kim })];
  const { reports, last } = staffActionsToSend(records);

  it('sends the known records, and remembers the last one looked at', () => {
    expect(reports.map((r) => r.position)).toEqual([3, 9]);
    expect(last).toEqual({ position: 9, hash: hash(9) });
  });

  it('the last record once the issuer stored every one sent; nothing from an older issuer or a short answer', () => {
    expect(acknowledged(reports, last, 9)).toEqual(last);
    expect(acknowledged(reports, last, 3)).toBeNull();
    expect(acknowledged(reports, last, undefined)).toBeNull();
    expect(acknowledged([], { position: 4, hash: hash(4) }, undefined)).toEqual({ position: 4, hash: hash(4) });
    expect(acknowledged([], null, undefined)).toBeNull();
  });
});
