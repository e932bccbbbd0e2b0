/**
 * docs/kiosk.md "Finding a ticket": the issuer's answer to a manual check-in as the door's verdict
 * (decide/manual-check-in.ts), and the search answer as the kiosk reads it (sync/ticket-search-answer.ts).
 */
import { describe, expect, it } from 'vitest';
import { manualVerdict } from '../../../main/kiosk/decide/manual-check-in.js';
import { readSearchAnswer } from '../../../main/kiosk/sync/ticket-search-answer.js';

const AT = '2026-07-11T20:00:00.000Z';
const ticket = { tid: 'T1', eid: 'E1', holder_name: 'Zoë Ångström', ticket_type: 'VIP' };

describe('manualVerdict', () => {
  it('valid is an ADMIT decided by the issuer, with the issuer’s ticket fields', () => {
    expect(manualVerdict({ status: 'valid', ticket }, AT)).toEqual({
      kind: 'admit',
      decided_at: AT,
      offline: false,
      decided_by: 'issuer',
      ticket: { tid: 'T1', eid: 'E1', holder_name: 'Zoë Ångström', ticket_type: 'VIP' },
    });
  });

  it('already_used is a refusal with the first use; rule_refused carries its rule; others refuse for their reason', () => {
    const used = manualVerdict({ status: 'already_used', ticket: { ...ticket, checked_in_at: '2026-07-11T19:00:00Z' } }, AT);
    expect(used).toMatchObject({ kind: 'refuse', reason: 'already_used', first_used_at: '2026-07-11T19:00:00Z' });
    const rule = { kind: 'ticket_type_window', message: 'not before 20:00' } as never;
    expect(manualVerdict({ status: 'rule_refused', ticket, rule }, AT)).toMatchObject({ kind: 'refuse', reason: 'rule_refused', rule });
    expect(manualVerdict({ status: 'revoked', ticket: { tid: 'T1', eid: 'E1' } }, AT)).toEqual({
      kind: 'refuse',
      reason: 'revoked',
      decided_at: AT,
      offline: false,
      decided_by: 'issuer',
      ticket: { tid: 'T1', eid: 'E1' },
    });
  });
});

describe('readSearchAnswer', () => {
  const row = {
    tid: 'T1',
    short_id: 'ABCD-WXYZ',
    holder_name: 'Zoë',
    ticket_type: null,
    status: 'checked_in',
    presence: 'inside',
    checked_in_at: AT,
  };

  it('keeps the known fields and the notes, drops what it does not know', () => {
    const answer = readSearchAnswer({
      more: true,
      results: [{ ...row, handout: 'wristband', attention: { required: true, notes: ['VIP desk'] } }],
    });
    expect(answer).toEqual({ more: true, results: [{ ...row, attention: { required: true, notes: ['VIP desk'] } }] });
  });

  it.each([
    ['no results list', { more: false }],
    ['no more flag', { results: [] }],
    ['a status it does not know', { more: false, results: [{ ...row, status: 'lost' }] }],
    ['a tid that is not text', { more: false, results: [{ ...row, tid: 7 }] }],
    ['a presence it does not know', { more: false, results: [{ ...row, presence: 'roof' }] }],
  ])('refuses an answer with %s', (_what, body) => {
    expect(readSearchAnswer(body)).toBeNull();
  });
});
