/** The dashboard's kiosk view (issuer/services/dashboard.ts kioskView): pure, from a kiosk's row and the event's policies. */
import { describe, expect, it } from 'vitest';
import { kioskView } from '../../../issuer/services/dashboard.js';
import type { KioskRow } from '../../../issuer/store/dashboard.js';

const row = (changes: Partial<KioskRow> = {}): KioskRow => ({
  api_key_id: 'key_1',
  scanner_id: 'door-1',
  scanner_name: 'North door',
  gate_id: 'North',
  token_direction: null,
  heartbeat_direction: null,
  pending_scans: null,
  offline_exposure: null,
  offline_last_hour: null,
  reported_at: null,
  clock_offset_ms: null,
  ...changes,
});

const policies = {
  default: { policy: 'capped' as const, per_hour: 5 },
  by_type: { VIP: { policy: 'online-only' as const }, Day: { policy: 'capped' as const, per_hour: 2 } },
};

describe('kioskView', () => {
  it('a kiosk that never sent a heartbeat: its setup code’s direction, no queue, nothing exposed', () => {
    expect(kioskView(row({ token_direction: 'exit' }), policies, new Map())).toEqual({
      api_key_id: 'key_1',
      scanner_id: 'door-1',
      scanner_name: 'North door',
      gate_id: 'North',
      direction: 'exit',
      last_heartbeat_at: null,
      pending_scans: null,
      clock_offset_ms: null,
      clock_off: false,
      exposure: [],
    });
  });

  it('flags a kiosk whose clock is off by more than 60 s, either way (docs/issuer.md "Kiosk clocks")', () => {
    const flag = (offset: number | null) => kioskView(row({ clock_offset_ms: offset }), policies, new Map()).clock_off;
    expect([flag(null), flag(0), flag(60_000), flag(-60_000), flag(60_001), flag(-7_200_000)]).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    expect(kioskView(row({ clock_offset_ms: -7_200_000 }), policies, new Map()).clock_offset_ms).toBe(-7_200_000);
  });

  it('per ticket type: not synced and last hour from the heartbeat, synced from the issuer, against the type’s own policy or the default', () => {
    const view = kioskView(
      row({
        token_direction: 'exit',
        heartbeat_direction: 'entry',
        pending_scans: 3,
        reported_at: '2026-12-01T19:00:00.000Z',
        offline_exposure: JSON.stringify({ Day: 1, '': 2 }),
        offline_last_hour: JSON.stringify({ Day: 2, '': 4, VIP: 0 }),
      }),
      policies,
      new Map([
        ['Day', 7],
        ['VIP', 1],
      ]),
    );
    // What the kiosk says now wins over its setup code.
    expect(view).toMatchObject({ direction: 'entry', pending_scans: 3, last_heartbeat_at: '2026-12-01T19:00:00.000Z' });
    expect(view.exposure).toEqual([
      { ticket_type: 'Day', unsynced: 1, last_hour: 2, synced: 7, policy: 'capped', per_hour: 2, at_cap: true },
      { ticket_type: 'VIP', unsynced: 0, last_hour: 0, synced: 1, policy: 'online-only', per_hour: null, at_cap: false },
      { ticket_type: '', unsynced: 2, last_hour: 4, synced: 0, policy: 'capped', per_hour: 5, at_cap: false },
    ]);
  });

  it('a report that is not a JSON object of counts counts as nothing', () => {
    for (const text of ['not json', '[1,2]', '{"Day":-1}', '{"Day":"3"}', 'null']) {
      expect(kioskView(row({ offline_exposure: text, offline_last_hour: text }), policies, new Map()).exposure).toEqual([]);
    }
  });
});
