/** The revocation list on the screens (docs/kiosk.md "Revocation list"): the offline refusal's words, Ready's age line and warning. */
import { afterEach, describe, expect, it } from 'vitest';
import type { KioskState } from '../../../main/kiosk/kiosk-api.js';
import type { Verdict } from '../../../protocol/index.js';
import { setLanguage } from '../../../renderer/messages/format.js';
import { readyView } from '../../../renderer/view/ready-view-model.js';
import { verdictView } from '../../../renderer/view/verdict-view-model.js';
import { ENROLLED_STATE } from './fixtures.js';

const UTC = { timeZone: 'UTC' };

afterEach(() => {
  setLanguage('en');
});

const revoked = (synced?: string | null): Verdict => ({
  kind: 'refuse',
  reason: 'revoked',
  decided_at: '2026-07-18T20:10:00.000Z',
  offline: synced !== undefined,
  decided_by: synced !== undefined ? 'revoked_list' : 'issuer',
  ...(synced === undefined ? {} : { revocations_synced_at: synced }),
});

const state = {
  ...ENROLLED_STATE,
  event: { ...ENROLLED_STATE.event!, name: 'Summer Night' },
  gate_id: null,
  connection: 'offline',
} satisfies KioskState;

const at = (iso: string): number => Date.parse(iso);

describe('revoked on the Verdict screen', () => {
  it('offline, says as of which sync; online, just revoked', () => {
    expect(verdictView(revoked('2026-07-18T14:02:00.000Z'), UTC).reasonText).toBe('Revoked (as of the last sync at 14:02)');
    expect(verdictView(revoked(), UTC).reasonText).toBe('Revoked');
    setLanguage('de');
    expect(verdictView(revoked('2026-07-18T14:02:00.000Z'), UTC).reasonText).toBe('Gesperrt (Stand der letzten Synchronisierung um 14:02)');
  });
});

describe('the revocation list on Ready', () => {
  const synced = { synced_at: '2026-07-18T20:00:00.000Z', count: 12, max_age_ms: 15 * 60_000 };

  it('shows its age, and warns past the limit', () => {
    expect(readyView({ ...state, revocations: synced }, UTC, at('2026-07-18T20:03:30Z')).revocationList).toEqual({
      text: 'Revocation list from 20:00 (3 min old, 12 revoked)',
      stale: false,
    });
    expect(readyView({ ...state, revocations: synced }, UTC, at('2026-07-18T20:16:00Z')).revocationList).toEqual({
      text: 'Revocation list is 16 min old (last sync 20:00): tickets revoked since then are not refused offline',
      stale: true,
    });
  });

  it('warns before the first sync; says nothing at an issuer without a list', () => {
    expect(readyView({ ...state, revocations: null }, UTC).revocationList).toMatchObject({ stale: true });
    expect(readyView(state, UTC).revocationList).toBeNull();
  });

  it('lists revoked tickets admitted offline apart from double admissions', () => {
    const view = readyView({
      ...state,
      double_admissions: [
        { tid: 'A', eid: 'EVT', conflict: 'already_used', admitted_here_at: '2026-07-18T19:50:00Z', first_checked_in_at: null },
        { tid: 'B', eid: 'EVT', conflict: 'revoked', admitted_here_at: '2026-07-18T19:51:00Z', first_checked_in_at: null },
        { tid: 'C', eid: 'EVT', conflict: 'revoked', admitted_here_at: '2026-07-18T19:52:00Z', first_checked_in_at: null },
      ],
    });
    expect(view.doubleAdmissionsText).toBe('1 ticket was admitted twice while offline');
    expect(view.revokedAdmissionsText).toBe('2 revoked tickets were admitted while offline');
  });
});
