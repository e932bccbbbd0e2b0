/** A verdict's details (docs/kiosk.md "Verdict details"): main/kiosk/decide/verdict-details.ts, and the lines the screen lists. */
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../protocol/index.js';
import { findVerdict, verdictDetailsOf } from '../../../main/kiosk/decide/verdict-details.js';
import { verdictDetailLines } from '../../../renderer/view/verdict-details-view.js';
import type { AttentionOverride } from '../../../main/kiosk/kiosk-api.js';

const ticket = { tid: '01HZX9A1B2C3D4E5F6G7H8J9KM', eid: 'EVT', ticket_type: 'VIP', holder_name: 'Ada' };
const utc = { timeZone: 'UTC', locale: 'en-GB' };
const admit: Verdict = {
  kind: 'admit',
  decided_at: '2026-07-18T19:42:00.000Z',
  offline: false,
  decided_by: 'issuer',
  ticket,
  attention: { required: true, notes: ['Wheelchair user'] },
};
const byPeer: Verdict = {
  kind: 'refuse',
  reason: 'admitted_at_other_gate',
  decided_at: '2026-07-18T19:45:00.000Z',
  offline: true,
  decided_by: 'seen_by_peer',
  ticket,
  first_used_at: '2026-07-18T19:03:00.000Z',
  first_used_gate: 'Gate A',
  first_used_offline: true,
  first_used_scanner: 'scn_peer',
};
const kim: AttentionOverride = { at: '2026-07-18T19:42:20.000Z', staff_id: 'kim', name: 'Kim', role: 'supervisor', via: 'pin' };

describe('verdict details: the rule', () => {
  it('finds a recent verdict by its decided_at, or none', () => {
    expect(findVerdict([byPeer, admit], admit.decided_at)).toBe(admit);
    expect(findVerdict([byPeer, admit], '2000-01-01T00:00:00.000Z')).toBeNull();
  });

  it('an ADMIT with attention: the ticket, who decided, the attention, and who overrode its prompt', () => {
    expect(verdictDetailsOf(admit, kim)).toEqual({
      decided_at: admit.decided_at,
      kind: 'admit',
      reason: null,
      decided_by: 'issuer',
      offline: false,
      lane: null,
      tid: ticket.tid,
      eid: 'EVT',
      ticket_type: 'VIP',
      first_used: null,
      rule: null,
      detail: null,
      revocations_synced_at: null,
      attention: { required: true, notes: ['Wheelchair user'] },
      override: kim,
    });
  });

  it('a seen_by_peer refusal: why, when and where first checked in, and the peer kiosk', () => {
    expect(verdictDetailsOf(byPeer, null)).toMatchObject({
      kind: 'refuse',
      reason: 'admitted_at_other_gate',
      decided_by: 'seen_by_peer',
      offline: true,
      first_used: { at: '2026-07-18T19:03:00.000Z', gate: 'Gate A', scanner_id: 'scn_peer', offline: true },
      attention: null,
      override: null,
    });
  });
});

describe('verdict details: the lines the screen lists', () => {
  it('one labelled line per fact, the override with the staff id', () => {
    expect(verdictDetailLines(verdictDetailsOf(admit, kim), utc).map(({ key, value }) => [key, value])).toEqual([
      ['ticket', ticket.tid],
      ['ticket_type', 'VIP'],
      ['decided', '19:42, by the issuer'],
      ['check', 'issuer'],
      ['attention', 'flagged: check before letting in'],
      ['override', '19:42 by Kim (supervisor, kim)'],
    ]);
  });

  it('a peer refusal names the first check-in, its gate and the peer; an override without a PIN names no one', () => {
    const lines = verdictDetailLines(verdictDetailsOf(byPeer, null), utc);
    expect(lines.map((line) => line.key)).toEqual(['ticket', 'ticket_type', 'decided', 'check', 'reason', 'first_used', 'peer']);
    expect(lines.find((line) => line.key === 'first_used')?.value).toBe('19:03 at Gate A');
    expect(lines.find((line) => line.key === 'peer')?.value).toBe('scn_peer');
    const anyone: AttentionOverride = { at: kim.at, staff_id: null, name: null, role: 'technician', via: null };
    expect(verdictDetailLines(verdictDetailsOf(admit, anyone), utc).at(-1)?.value).toBe('19:42 at a kiosk without a staff PIN');
  });
});
