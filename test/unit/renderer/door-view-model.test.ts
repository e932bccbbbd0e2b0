/** renderer/view/door-view-model.ts: when "Undo check-in" is offered, annul()'s answers in words, the gate settings' words. */
import { describe, expect, it } from 'vitest';
import type { DoorState, KioskState } from '../../../renderer/kiosk-bridge-types.js';
import { inLanguage } from '../../../renderer/messages/format.js';
import { annulOutcomeView, annulReason, doorSettingsView, offersAnnul } from '../../../renderer/view/door-view-model.js';

const UTC = { timeZone: 'UTC' };
const NOW = Date.parse('2026-07-18T20:00:00Z');

const door: DoorState = {
  heartbeat_at: '2026-07-18T19:58:00Z',
  entry_policy: 'reentry',
  capacity: 500,
  occupancy: { inside: 460, capacity: 500, level: 'nearly_full' },
  can_annul: true,
  annul_window_ms: 120_000,
};

const state = {
  enrolled: true,
  direction: 'entry',
  door,
  offline_exposure: [
    { ticket_type: '', policy: 'offline', last_hour: 2, cap: null, unsynced: 1 },
    { ticket_type: 'Day', policy: 'capped', last_hour: 5, cap: 5, unsynced: 3 },
    { ticket_type: 'VIP', policy: 'online-only', last_hour: 0, cap: null, unsynced: 0 },
  ],
} as unknown as KioskState;

describe('offersAnnul', () => {
  const checkIn = (msAgo: number) => ({ tid: 'T', checkedInAt: new Date(NOW - msAgo).toISOString() });

  it('within the window, with the right: offered; past the window or without the right: not', () => {
    expect(offersAnnul(state, checkIn(119_000), NOW)).toBe(true);
    expect(offersAnnul(state, checkIn(120_000), NOW)).toBe(true);
    expect(offersAnnul(state, checkIn(120_001), NOW)).toBe(false);
    expect(offersAnnul({ ...state, door: { ...door, can_annul: false } }, checkIn(1000), NOW)).toBe(false);
  });

  it('no heartbeat yet (or an issuer without door operations): never offered', () => {
    expect(offersAnnul({ ...state, door: null }, checkIn(1000), NOW)).toBe(false);
    expect(offersAnnul(null, checkIn(1000), NOW)).toBe(false);
    expect(offersAnnul(state, null, NOW)).toBe(false);
  });

  it('a check-in time not known here: offered, the kiosk core asks the issuer and decides', () => {
    expect(offersAnnul(state, { tid: 'T', checkedInAt: null }, NOW)).toBe(true);
  });
});

describe('annulReason', () => {
  it('trims and folds spaces; empty or over 200 characters is no reason', () => {
    expect(annulReason('  Wrong   person \n')).toBe('Wrong person');
    expect(annulReason('   ')).toBeNull();
    expect(annulReason('x'.repeat(200))).toHaveLength(200);
    expect(annulReason('x'.repeat(201))).toBeNull();
  });
});

describe('annulOutcomeView', () => {
  it('each answer in words, with a hook and a tone', () => {
    expect(annulOutcomeView({ type: 'annulled', tid: 'T' })).toEqual({
      dataResult: 'annulled',
      text: 'Check-in annulled: a rescan admits',
      tone: 'done',
    });
    expect(annulOutcomeView({ type: 'queued_offline', tid: 'T' })).toMatchObject({ dataResult: 'queued_offline', tone: 'done' });
    expect(annulOutcomeView({ type: 'not_checked_in', tid: 'T' })).toMatchObject({
      text: 'Not checked in: nothing to annul',
      tone: 'nothing',
    });
    expect(annulOutcomeView({ type: 'not_allowed', message: 'm' })).toMatchObject({
      text: 'This scanner may not annul check-ins: ask the box office',
      tone: 'problem',
    });
    expect(annulOutcomeView({ type: 'too_late', checked_in_at: null, window_ms: 120_000 }).text).toBe(
      'Too late to annul here (only within 2 minutes of the check-in)',
    );
    expect(annulOutcomeView({ type: 'unavailable', message: 'the issuer is unreachable' }).text).toBe(
      'Could not annul: the issuer is unreachable',
    );
    const locked = { type: 'staff_locked', locked_until: null, message: 'm', call: 'annul', needs: 'supervisor' } as const;
    expect(annulOutcomeView({ ...locked, unlocked_as: null })).toMatchObject({
      dataResult: 'staff_locked',
      text: 'Unlock staff functions with the staff PIN to annul',
    });
    // Someone is unlocked whose role may not annul: the role it needs, in words.
    expect(annulOutcomeView({ ...locked, unlocked_as: { name: 'Kim', role: 'steward' } }).text).toBe(
      'Not allowed for Kim (steward): this needs the role supervisor. Enter the PIN of someone with that role or scan their staff badge.',
    );
    expect(annulOutcomeView(null)).toMatchObject({ dataResult: 'failed', tone: 'problem' });
  });
});

describe('doorSettingsView', () => {
  it('direction and its switch, occupancy with its level, exposure per type against the cap and not yet synced', () => {
    const view = doorSettingsView(state, UTC);
    expect(view).toMatchObject({
      direction: 'entry',
      directionText: 'Gate direction: entry',
      switchTo: 'exit',
      switchText: 'Make this an exit gate',
      occupancyText: 'Inside: 460 of 500 · nearly full',
      occupancyLevel: 'nearly_full',
      heardAtText: 'Door settings from the issuer at 19:58',
    });
    expect(view.exposureRows).toEqual([
      { ticketType: '', text: 'default: 2 admissions (admits offline) · 1 not yet synced', overCap: false },
      { ticketType: 'Day', text: 'Day: 5 admissions, at most 5 per hour · 3 not yet synced', overCap: true },
      { ticketType: 'VIP', text: 'VIP: 0 admissions (online only) · 0 not yet synced', overCap: false },
    ]);
    const exit = doorSettingsView({ ...state, direction: 'exit', door: null } as KioskState, UTC);
    expect(exit).toMatchObject({ switchTo: 'entry', switchText: 'Make this an entry gate', occupancyText: null, heardAtText: null });
  });

  it('in German', () => {
    const view = inLanguage('de', () => doorSettingsView(state, UTC));
    expect(view.switchText).toBe('Zum Ausgang machen');
    expect(view.exposureRows[1]!.text).toBe('Day: 5 Einlässe, höchstens 5 pro Stunde · 3 noch nicht übertragen');
  });
});
