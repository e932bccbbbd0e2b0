import { describe, expect, it } from 'vitest';
import type { KioskState } from '../../../main/kiosk/kiosk-api.js';
import { readyView, RECENT_VERDICTS_SHOWN } from '../../../renderer/view/ready-view-model.js';
import { chooseScreen } from '../../../renderer/view/screen-choice.js';
import { reEnrollQuestion } from '../../../renderer/view/setup-view-model.js';
import { statusView } from '../../../renderer/view/status-view-model.js';
import { ENROLLED_STATE } from './fixtures.js';

const UTC = { timeZone: 'UTC' };

const state: KioskState = ENROLLED_STATE;

describe('ready view-model', () => {
  it('event, date, gate, connection, queue', () => {
    expect(readyView(state, UTC)).toMatchObject({
      eventName: 'Summer Night Open Air',
      eventDate: 'Sat, 18 Jul 2026, 19:30',
      gate: 'Gate B',
      connection: { text: 'Online', dataConnection: 'online' },
      offlineRule: null,
      pendingText: 'All scans synced',
      doubleAdmissionsText: null,
      unauthorisedText: null,
      recent: [],
    });
  });

  it('offline with a queue and double admissions says so in words', () => {
    const offline = readyView(
      {
        ...state,
        gate_id: null,
        connection: 'offline',
        offline_policy: 'strict',
        pending_scans: 1,
        double_admissions: [
          { tid: 'A', eid: 'EVT', admitted_here_at: '2026-07-18T19:50:00Z', first_checked_in_at: null, conflict: 'already_used' },
          { tid: 'B', eid: 'EVT', admitted_here_at: '2026-07-18T19:51:00Z', first_checked_in_at: null, conflict: 'already_used' },
        ],
      },
      UTC,
    );
    expect(offline).toMatchObject({
      gate: 'All gates',
      connection: { text: 'Offline', dataConnection: 'offline' },
      offlineRule: 'Tickets are refused until the connection is back.',
      pendingText: '1 scan waiting to sync',
      doubleAdmissionsText: '2 tickets were admitted twice while offline',
    });
    expect(readyView({ ...state, pending_scans: 7 }).pendingText).toBe('7 scans waiting to sync');
  });

  it('lists the last few verdicts, newest first, with time and who', () => {
    const verdicts = Array.from({ length: 8 }, (_, i) => ({
      kind: 'admit' as const,
      decided_at: `2026-07-18T19:${String(59 - i).padStart(2, '0')}:00Z`,
      offline: false,
      decided_by: 'issuer' as const,
      ticket: { tid: `T${i}`, eid: 'EVT', holder_name: `Guest ${i}` },
    }));
    const view = readyView({ ...state, last_verdicts: verdicts }, UTC);
    expect(view.recent).toHaveLength(RECENT_VERDICTS_SHOWN);
    expect(view.recent[0]).toEqual({ icon: '✓', dataVerdict: 'admit', time: '19:59', text: 'Valid ticket — Guest 0' });
  });

  it('a scanner that lost its key says how to fix it', () => {
    expect(readyView({ ...state, authorised: false }).unauthorisedText).toBe(
      'Scanner no longer authorised — scan a new setup code from your organizer',
    );
  });
});

describe('status lookup view-model', () => {
  it('a used ticket: when, who, which', () => {
    const view = statusView(
      {
        type: 'status',
        status: {
          tid: 'T1',
          eid: 'EVT',
          status: 'checked_in',
          holder_name: 'Zoë',
          ticket_type: 'VIP',
          issued_at: '2026-05-02T10:15:00Z',
          checked_in_at: '2026-07-18T19:42:00Z',
        },
      },
      UTC,
    );
    expect(view).toEqual({
      dataStatus: 'checked_in',
      headline: 'Already used at 19:42',
      // The name apart, for the screen's name element (docs/kiosk.md "Holder names").
      holder: { text: 'Holder: {name}', name: 'Zoë' },
      details: ['Type: VIP', 'Issued Sat, 2 May 2026, 10:15', 'Ticket ID T1'],
    });
  });

  it.each([
    ['valid', 'Valid — not used yet'],
    ['revoked', 'Revoked'],
    ['expired', 'Expired'],
  ] as const)('%s', (status, headline) => {
    expect(statusView({ type: 'status', status: { tid: 'T', eid: 'E', status, issued_at: '2026-05-02T10:15:00Z' } }).headline).toBe(
      headline,
    );
  });

  it('answers that are not a status', () => {
    expect(statusView({ type: 'not_found' })).toMatchObject({
      dataStatus: 'not_found',
      headline: 'Unknown ticket — the organizer has no record of it',
    });
    expect(statusView({ type: 'unavailable', message: 'offline' }).headline).toBe(
      'Cannot check right now — no connection to the organizer',
    );
    expect(statusView({ type: 'scanner_unauthorized', message: 'x' }).headline).toBe('Scanner no longer authorised — re-enroll');
  });
});

describe('re-enroll question', () => {
  it('names both events and gates and warns about unsynced scans', () => {
    const question = reEnrollQuestion(
      { event_name: 'Summer Night', gate_id: 'B' },
      { iss: 'https://x.example', eid: 'E2', event_name: null, gate_id: null, expires_at: '2026-08-01T00:00:00Z' },
      3,
    );
    expect(question).toEqual({
      title: 'Switch this scanner to another event?',
      current: 'Now: Summer Night — Gate B',
      proposed: 'New: an event without a name — All gates',
      pending: '3 scans are still waiting to sync.',
    });
  });
});

describe('screen choice', () => {
  const pending = { iss: 'https://x.example', eid: 'E2', event_name: 'New', gate_id: null, expires_at: '2026-08-01T00:00:00Z' };
  it.each([
    ['no state yet', { state: null, verdictShown: false, lookupOpen: false }, 'starting'],
    ['not enrolled', { state: { ...state, enrolled: false }, verdictShown: false, lookupOpen: false }, 'setup'],
    ['enrolled', { state, verdictShown: false, lookupOpen: false }, 'ready'],
    ['a verdict is up', { state, verdictShown: true, lookupOpen: true }, 'verdict'],
    ['lookup open', { state, verdictShown: false, lookupOpen: true }, 'lookup'],
    [
      're-enroll question beats everything',
      { state: { ...state, re_enroll_pending: pending }, verdictShown: true, lookupOpen: true },
      'setup',
    ],
  ] as const)('%s → %s', (_label, inputs, screen) => {
    expect(chooseScreen(inputs)).toBe(screen);
  });
});
