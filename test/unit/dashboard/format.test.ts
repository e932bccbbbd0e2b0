/** What the admin dashboard page says (dashboard/format.ts): pure functions, no DOM. */
import { describe, expect, test } from 'vitest';
import {
  badgeState,
  badgeStateText,
  defaultEvent,
  describeAlert,
  formatAge,
  formatDuration,
  formatPercent,
  roleText,
  scannerStateText,
  signInProblem,
} from '../../../dashboard/format.js';
import type { AlertView, EventSummary, ScannerView, StaffBadgeView } from '../../../issuer/dashboard-api.js';

describe('numbers and times', () => {
  test.each([
    [0, 0, '–'],
    [0, 10, '0.0 %'],
    [1, 3, '33.3 %'],
    [9999, 10000, '99.9 %'],
    [10, 10, '100.0 %'],
  ])('%d of %d → %s', (part, whole, text) => expect(formatPercent(part, whole)).toBe(text));

  test.each([
    [1_000, 'just now'],
    [12_000, '12 s ago'],
    [185_000, '3 min ago'],
    [2 * 3600_000, '2 h ago'],
    [3 * 86400_000, '3 days ago'],
  ])('age %d ms → %s', (ms, text) => expect(formatAge(ms)).toBe(text));

  test.each([
    [45, '45 s'],
    [185, '3 min 5 s'],
    [180, '3 min'],
    [7800, '2 h 10 min'],
  ])('duration %d s → %s', (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});

const alert = (changes: Partial<AlertView>): AlertView => ({
  id: 1,
  kind: 'revoked_ticket',
  at: '2026-12-01T20:10:00.000Z',
  scanned_at: '2026-12-01T20:10:00.000Z',
  tid: '01TID',
  holder_name: 'Ada Lovelace',
  ticket_type: 'VIP',
  ticket_event_name: null,
  gate_id: 'North',
  scanner_id: 'scanner-1',
  scanner_name: 'North kiosk',
  api_key_id: 'key_1',
  first_check_in: null,
  delay_seconds: 0,
  ...changes,
});

describe('alert sentences name who, where and what happened', () => {
  test('possible double admission', () => {
    const text = describeAlert(
      alert({
        kind: 'offline_double_admission',
        delay_seconds: 300,
        first_check_in: { checked_in_at: '2026-12-01T20:12:00.000Z', gate_id: 'South', scanner: 'South kiosk' },
      }),
    );
    expect(text).toContain('Ada Lovelace (ticket 01TID)');
    expect(text).toContain('at gate North by North kiosk');
    expect(text).toContain('received 5 min later');
    expect(text).toContain('at gate South by South kiosk');
    expect(text).toContain('two people may have entered on one ticket');
  });
  test('forged, revoked, wrong event', () => {
    expect(describeAlert(alert({ kind: 'forged_signature', holder_name: null }))).toContain('failed signature verification');
    expect(describeAlert(alert({ kind: 'revoked_ticket' }))).toContain('revoked, was presented');
    expect(describeAlert(alert({ kind: 'wrong_event', ticket_event_name: 'Other night' }))).toContain('for "Other night"');
    expect(describeAlert(alert({ kind: 'wrong_event', gate_id: null, scanner_name: null }))).toContain('by scanner-1');
  });
});

describe('the event shown first', () => {
  const event = (eid: string, date: string, ends: string): EventSummary => ({ eid, name: eid, date, venue: 'V', ends_at: ends });
  const events = [
    event('past', '2026-11-01T19:00:00Z', '2026-11-02T07:00:00Z'),
    event('next', '2026-12-10T19:00:00Z', '2026-12-11T07:00:00Z'),
    event('later', '2026-12-20T19:00:00Z', '2026-12-21T07:00:00Z'),
  ];
  test('the one in progress, else the next, else the latest', () => {
    expect(
      defaultEvent([...events, event('now', '2026-12-01T19:00:00Z', '2026-12-02T07:00:00Z')], Date.parse('2026-12-01T20:00:00Z'))!.eid,
    ).toBe('now');
    expect(defaultEvent(events, Date.parse('2026-12-01T20:00:00Z'))!.eid).toBe('next');
    expect(defaultEvent(events, Date.parse('2027-01-01T00:00:00Z'))!.eid).toBe('later');
    expect(defaultEvent([], 0)).toBeNull();
  });
});

test('scanner state in words', () => {
  const now = Date.parse('2026-12-01T20:10:00Z');
  const scanner: ScannerView = {
    api_key_id: 'k',
    scanner_id: 's',
    scanner_name: null,
    scanner_platform: null,
    gate_id: null,
    enrolled_at: '2026-12-01T18:00:00Z',
    expires_at: '2026-12-02T18:00:00Z',
    revoked: false,
    last_contact_at: '2026-12-01T20:05:00Z',
    online: false,
    scans: 0,
  };
  expect(scannerStateText({ ...scanner, online: true }, now)).toBe('Online');
  expect(scannerStateText(scanner, now)).toBe('No contact for 5 min');
  expect(scannerStateText({ ...scanner, revoked: true }, now)).toBe('Revoked');
  expect(scannerStateText({ ...scanner, expires_at: '2026-12-01T20:00:00Z' }, now)).toBe('Key expired');
});

test('sign-in problems', () => {
  expect(signInProblem({ status: 401, reason: 'admin_token_required' })).toContain('not right');
  expect(signInProblem({ status: 401, reason: 'admin_token_not_set' })).toContain('no admin token yet');
  expect(signInProblem({ status: 429, retryAfterSeconds: 200 })).toContain('3 min 20 s');
});

describe('staff badges in words (docs/issuer.md "Staff roles and badges")', () => {
  const now = Date.parse('2026-06-01T20:00:00Z');
  const badge = (fields: Partial<StaffBadgeView>): StaffBadgeView => ({
    sid: '01STAFF',
    eid: 'E1',
    name: 'Kim',
    role: 'supervisor',
    not_before: '2026-06-01T18:00:00Z',
    expires_at: '2026-06-02T06:00:00Z',
    issued_at: '2026-06-01T17:00:00Z',
    revoked_at: null,
    revoked_reason: null,
    ...fields,
  });

  test('valid within its window, not yet before it, expired after it, revoked whatever its window', () => {
    expect(badgeState(badge({}), now)).toBe('valid');
    expect(badgeState(badge({ not_before: '2026-06-01T21:00:00Z' }), now)).toBe('not_yet');
    expect(badgeState(badge({ expires_at: '2026-06-01T20:00:00Z' }), now)).toBe('expired');
    expect(badgeState(badge({ expires_at: '2026-06-01T19:00:00Z', revoked_at: '2026-06-01T18:30:00Z' }), now)).toBe('revoked');
  });

  test('the status says when and why it was revoked, or that no reason was given', () => {
    expect(badgeStateText(badge({}), now)).toBe('Valid');
    expect(badgeStateText(badge({ not_before: '2026-06-01T21:00:00Z' }), now)).toBe('Not valid yet');
    expect(badgeStateText(badge({ revoked_at: '2026-06-01T18:30:00Z', revoked_reason: 'left the crew' }), now)).toMatch(
      /^Revoked .*2026.* · reason: left the crew$/,
    );
    expect(badgeStateText(badge({ revoked_at: '2026-06-01T18:30:00Z' }), now)).toMatch(/^Revoked .* · no reason given$/);
  });

  test('roles in words; a role this page does not know is shown as named', () => {
    expect(['steward', 'supervisor', 'technician', 'caterer'].map(roleText)).toEqual(['Steward', 'Supervisor', 'Technician', 'caterer']);
  });
});
