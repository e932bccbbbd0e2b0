import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../protocol/index.js';
import { verdictIdentity, verdictView } from '../../../renderer/view/verdict-view-model.js';

const UTC = { timeZone: 'UTC' };
const ticket = { tid: '01HZX9A1B2C3D4E5F6G7H8J9KM', eid: 'EVT', holder_name: 'Zoë Müller', ticket_type: 'VIP', event_name: 'Summer Night' };

describe('verdict view-model', () => {
  it('admit: the word, the check mark, green, and the hooks', () => {
    const verdict: Verdict = { kind: 'admit', decided_at: '2026-07-18T19:42:00Z', offline: false, decided_by: 'issuer', ticket };
    expect(verdictView(verdict, UTC)).toEqual({
      word: 'ADMIT',
      icon: '✓',
      reasonText: 'Valid ticket',
      cssClass: 'verdict--admit',
      dataVerdict: 'admit',
      dataReason: 'valid',
      holderName: 'Zoë Müller',
      ticketType: 'VIP',
      offlineNote: null,
    });
  });

  it('an offline admit says it will sync', () => {
    const verdict: Verdict = { kind: 'admit', decided_at: '2026-07-18T19:42:00Z', offline: true, decided_by: 'offline_policy', ticket };
    expect(verdictView(verdict).offlineNote).toBe('Admitted offline — will sync later');
  });

  it('a refusal the kiosk decided by itself carries no sync note, online or offline', () => {
    for (const offline of [true, false]) {
      const verdict: Verdict = {
        kind: 'refuse',
        reason: 'invalid_signature',
        decided_at: '2026-07-18T19:42:00Z',
        offline,
        decided_by: 'signature',
        ticket,
      };
      expect(verdictView(verdict).offlineNote).toBeNull();
    }
  });

  it('already used: the time of first use, on the kiosk clock', () => {
    const verdict: Verdict = {
      kind: 'refuse',
      reason: 'already_used',
      first_used_at: '2026-07-18T19:42:10Z',
      decided_at: '2026-07-18T20:01:00Z',
      offline: false,
      decided_by: 'issuer',
      ticket,
    };
    expect(verdictView(verdict, UTC)).toMatchObject({
      word: 'REFUSE',
      icon: '✗',
      cssClass: 'verdict--refuse',
      dataVerdict: 'refuse',
      dataReason: 'already_used',
      reasonText: 'Already used at 19:42',
    });
    expect(verdictView(verdict, { timeZone: 'Europe/Berlin' }).reasonText).toBe('Already used at 21:42');
  });

  it('already used without a time still says so', () => {
    const verdict: Verdict = {
      kind: 'refuse',
      reason: 'already_used',
      decided_at: '2026-07-18T20:01:00Z',
      offline: false,
      decided_by: 'issuer',
    };
    expect(verdictView(verdict).reasonText).toBe('Already used');
  });

  it('wrong event names the other event when it is known', () => {
    const named: Verdict = {
      kind: 'refuse',
      reason: 'wrong_event',
      decided_at: '2026-07-18T20:01:00Z',
      offline: true,
      decided_by: 'event',
      ticket: { ...ticket, event_name: 'Winter Jazz Night' },
    };
    expect(verdictView(named).reasonText).toBe('Ticket for another event: Winter Jazz Night');
    const unnamed: Verdict = { ...named, ticket: { tid: 'T', eid: 'OTHER' } };
    expect(verdictView(unnamed).reasonText).toBe('Ticket for another event');
  });

  it.each([
    ['revoked', 'Revoked'],
    ['expired', 'Expired'],
    ['not_a_ticket', 'Not a valid ticket'],
    ['invalid_signature', 'Not a valid ticket (forged or damaged)'],
  ] as const)('%s reads "%s"', (reason, text) => {
    const verdict: Verdict = { kind: 'refuse', reason, decided_at: '2026-07-18T20:01:00Z', offline: false, decided_by: 'issuer' };
    expect(verdictView(verdict)).toMatchObject({ dataReason: reason, reasonText: text, holderName: null, ticketType: null });
  });

  it('local refusals: layout mismatch and a scanner that lost its key', () => {
    expect(verdictView({ kind: 'refuse', reason: 'layout_mismatch' })).toMatchObject({
      dataVerdict: 'refuse',
      dataReason: 'layout_mismatch',
      reasonText: 'Scanner keyboard layout does not match — see settings',
      offlineNote: null,
    });
    expect(verdictView({ kind: 'refuse', reason: 'scanner_unauthorized' }).reasonText).toBe('Scanner no longer authorised — re-enroll');
  });

  it('identity tells two scans of one ticket apart, and matches one verdict seen twice', () => {
    const a: Verdict = { kind: 'admit', decided_at: '2026-07-18T19:42:00.000Z', offline: false, decided_by: 'issuer', ticket };
    const b: Verdict = {
      kind: 'refuse',
      reason: 'already_used',
      decided_at: '2026-07-18T19:42:05.000Z',
      offline: false,
      decided_by: 'issuer',
      ticket,
    };
    expect(verdictIdentity(a)).toBe(verdictIdentity(structuredClone(a)));
    expect(verdictIdentity(a)).not.toBe(verdictIdentity(b));
  });
});

describe('handouts on the verdict (docs/kiosk.md "Handouts")', () => {
  const handouts = [
    { item: 'wristband', count: 1, given: [{ hid: 'a', at: '2026-07-18T19:40:00Z', gate: 'North', scanner: 'Door 1' }] },
    { item: 'drink voucher', count: 2, given: [] },
  ];

  it('an ADMIT lists each item with its button, what is left and when and where the last was given', () => {
    const verdict: Verdict = { kind: 'admit', decided_at: '2026-07-18T19:42:00Z', offline: false, decided_by: 'issuer', ticket, handouts };
    const view = verdictView(verdict, UTC);
    expect(view.dataVerdict).toBe('admit');
    expect(view.handouts).toEqual({
      decidedAt: '2026-07-18T19:42:00Z',
      items: [
        {
          item: 'wristband',
          count: 1,
          left: 0,
          label: 'Give wristband',
          leftText: 'All given',
          lastGiven: 'Given 19:40 at Door 1 (North)',
        },
        { item: 'drink voucher', count: 2, left: 2, label: 'Give drink voucher ×2', leftText: '2 left', lastGiven: null },
      ],
      note: null,
    });
  });

  it("a handout station's scan is HANDOUT: its own word, icon and colour, never ADMIT", () => {
    const verdict: Verdict = {
      kind: 'admit',
      station: 'handout',
      decided_at: '2026-07-18T19:42:00Z',
      offline: false,
      decided_by: 'issuer',
      ticket,
      handouts,
    };
    const view = verdictView(verdict, UTC);
    expect(view).toMatchObject({ word: 'HANDOUT', icon: '+', cssClass: 'verdict--handout', dataVerdict: 'handout' });
    expect(view.handouts?.items).toHaveLength(2);
  });

  it('a refused tap says when and where the item was given', () => {
    const verdict: Verdict = {
      kind: 'admit',
      decided_at: '2026-07-18T19:42:00Z',
      offline: false,
      decided_by: 'issuer',
      ticket,
      handouts,
      handout_note: { kind: 'refused_given', item: 'wristband', given: handouts[0]!.given[0]! },
    };
    expect(verdictView(verdict, UTC).handouts?.note).toEqual({
      kind: 'refused_given',
      text: 'wristband already given 19:40 at Door 1 (North)',
    });
  });
});
