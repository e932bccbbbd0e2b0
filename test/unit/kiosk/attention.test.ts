import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../protocol/index.js';
import {
  activeHold,
  attentionFromAnswer,
  combineAttention,
  DEFAULT_ATTENTION_HOLD_SECONDS,
  holdFor,
  MAX_NOTE_LENGTH,
  needsAttention,
  overrideOf,
  parseAttentionHold,
  withAttention,
} from '../../../main/kiosk/decide/attention.js';
import { verdictView } from '../../../renderer/view/verdict-view-model.js';

const ticket = { tid: '01HZX9A1B2C3D4E5F6G7H8J9KM', eid: 'EVT', ticket_type: 'VIP' };
const admit: Verdict = { kind: 'admit', decided_at: '2026-07-18T19:42:00.000Z', offline: false, decided_by: 'issuer', ticket };
const refuse: Verdict = {
  kind: 'refuse',
  reason: 'already_used',
  decided_at: '2026-07-18T19:42:00.000Z',
  offline: false,
  decided_by: 'issuer',
  ticket,
};

describe('attention notes: the decision (docs/kiosk.md "Attention notes")', () => {
  it('the synced list gives what the issuer would: flag of ticket OR type, type note first, then the ticket note', () => {
    expect(combineAttention(null, null)).toBeNull();
    expect(combineAttention({ attention: false, note: null }, { attention: false, note: null })).toBeNull();
    expect(combineAttention({ attention: true, note: null }, null)).toEqual({ required: true, notes: [] });
    expect(combineAttention(null, { attention: true, note: null })).toEqual({ required: true, notes: [] });
    expect(combineAttention({ attention: false, note: 'Wristband' }, { attention: false, note: 'Wheelchair user' })).toEqual({
      required: false,
      notes: ['Wristband', 'Wheelchair user'],
    });
    expect(combineAttention({ attention: false, note: '  ' }, { attention: true, note: ' ID check ' })).toEqual({
      required: true,
      notes: ['ID check'],
    });
  });

  it("the issuer's answer: taken when well formed, nothing otherwise", () => {
    expect(attentionFromAnswer({ status: 'valid', attention: { required: true, notes: ['VIP lounge', 'Minor'] } })).toEqual({
      required: true,
      notes: ['VIP lounge', 'Minor'],
    });
    expect(attentionFromAnswer({ status: 'valid' })).toBeNull();
    expect(attentionFromAnswer({ attention: { required: 'yes', notes: [] } })).toBeNull();
    expect(attentionFromAnswer({ attention: { required: false, notes: 'x' } })).toBeNull();
    expect(attentionFromAnswer({ attention: { required: false, notes: [] } })).toBeNull();
    expect(attentionFromAnswer({ attention: { required: false, notes: [7, 'Real note'] } })).toEqual({
      required: false,
      notes: ['Real note'],
    });
    expect(attentionFromAnswer(null)).toBeNull();
    const long = attentionFromAnswer({ attention: { required: false, notes: ['x'.repeat(2000)] } });
    expect(long?.notes[0]).toHaveLength(MAX_NOTE_LENGTH);
  });

  it('only an ADMIT carries attention; only one with a flag or a note is the attention state', () => {
    const attention = { required: false, notes: ['Wristband'] };
    expect(withAttention(refuse, attention)).toBe(refuse);
    expect(withAttention(admit, null)).toBe(admit);
    const marked = withAttention(admit, attention);
    expect(marked).toEqual({ ...admit, attention });
    expect(needsAttention(marked)).toBe(true);
    expect(needsAttention(admit)).toBe(false);
  });

  it('an attention verdict holds the door for the configured time; other verdicts and a zero hold do not', () => {
    const marked = withAttention(admit, { required: true, notes: [] });
    const hold = holdFor(marked, 1_000, 30);
    expect(hold).toEqual({ decidedAt: admit.decided_at, tid: ticket.tid, until: 31_000, refused: 0 });
    expect(activeHold(hold, 30_999)).toBe(hold);
    expect(activeHold(hold, 31_000)).toBeNull();
    expect(holdFor(admit, 1_000, 30)).toBeNull();
    expect(holdFor(marked, 1_000, 0)).toBeNull();
  });

  it('kiosk-config attention_hold_seconds: default 30, whole seconds 0 to 600, a clear error otherwise', () => {
    expect(parseAttentionHold(undefined, 'kiosk-config.json')).toBe(DEFAULT_ATTENTION_HOLD_SECONDS);
    expect(parseAttentionHold({}, 'kiosk-config.json')).toBe(30);
    expect(parseAttentionHold({ attention_hold_seconds: 0 }, 'kiosk-config.json')).toBe(0);
    expect(parseAttentionHold({ attention_hold_seconds: 600 }, 'kiosk-config.json')).toBe(600);
    for (const bad of [-1, 601, 2.5, '30', null]) {
      expect(() => parseAttentionHold({ attention_hold_seconds: bad }, 'kiosk-config.json')).toThrow(
        'kiosk-config.json: attention_hold_seconds must be whole seconds from 0 to 600',
      );
    }
  });

  it('the screen: its own word, icon and class, the notes; a plain ADMIT is unchanged', () => {
    const view = verdictView(withAttention(admit, { required: true, notes: ['Wheelchair user'] }));
    expect(view).toMatchObject({
      word: 'ADMIT — ATTENTION',
      icon: '!',
      cssClass: 'verdict--attention',
      dataVerdict: 'admit',
      reasonText: 'Valid ticket — check before letting in',
      attention: { required: true, notes: ['Wheelchair user'] },
    });
    expect(verdictView(withAttention(admit, { required: false, notes: ['Wristband'] })).reasonText).toBe('Valid ticket — read the note');
    expect(verdictView(admit)).toMatchObject({ word: 'ADMIT', icon: '✓', cssClass: 'verdict--admit' });
    expect(verdictView(admit).attention).toBeUndefined();
  });
});

describe('overriding the prompt (docs/kiosk.md "Attention notes")', () => {
  it('ends a hold in force and says what the audit log records; nothing held, or a hold run out, is nothing to override', () => {
    const flagged = withAttention(admit, { required: true, notes: ['Wheelchair user'] });
    const hold = holdFor(flagged, 1_000, 30)!;
    hold.refused = 2;
    expect(overrideOf(hold, 2_000)).toEqual({
      event: 'attention_override',
      tid: ticket.tid,
      decided_at: admit.decided_at,
      refused_scans: 2,
    });
    expect(overrideOf(hold, 31_000)).toBeNull();
    expect(overrideOf(null, 2_000)).toBeNull();
  });
});
