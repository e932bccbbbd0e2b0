import { describe, expect, it } from 'vitest';
import { ENROLL_FAILURES } from '../../../main/kiosk/sync/enrollment.js';
import { REFUSAL_REASONS, TICKET_STATES } from '../../../protocol/index.js';
import { en } from '../../../renderer/messages/en.js';
import { createTranslator, interpolate, placeholdersOf, t, type Catalogue } from '../../../renderer/messages/format.js';
import { enrollFailureText } from '../../../renderer/view/setup-view-model.js';
import { LOCAL_REFUSALS, refusalText } from '../../../renderer/view/verdict-view-model.js';

describe('message catalogue', () => {
  it('every refusal reason, protocol and local, has its own sentence', () => {
    const texts = new Map<string, string>();
    for (const reason of [...REFUSAL_REASONS, ...LOCAL_REFUSALS]) {
      const text = refusalText({
        kind: 'refuse',
        reason,
        decided_at: '2026-07-18T19:42:00Z',
        offline: false,
        decided_by: 'issuer',
      } as never);
      expect(text, reason).toMatch(/\S/);
      expect(text, reason).not.toMatch(/[{}]/);
      texts.set(reason, text);
    }
    // Everything reads differently except the deliberate "Not a valid ticket" family.
    expect(new Set(texts.values()).size).toBe(texts.size);
  });

  it('every enrollment failure the kiosk core can report has plain words', () => {
    for (const code of ENROLL_FAILURES) {
      const text = enrollFailureText(code);
      expect(text, code).not.toBe(t('setup.error.failed'));
      expect(text, code).not.toMatch(/_|[A-Z]{4,}/); // no codes like TOKEN_REVOKED in front of a steward
    }
  });

  it('every ticket state has a lookup headline', () => {
    for (const state of TICKET_STATES) expect(Object.hasOwn(en, `lookup.status.${state}`), state).toBe(true);
  });

  it('interpolates named placeholders', () => {
    expect(t('reason.already_used_at', { time: '19:42' })).toBe('Already used at 19:42');
    expect(t('reason.wrong_event_named', { event: 'Winter Jazz Night' })).toBe('Ticket for another event: Winter Jazz Night');
    expect(t('ready.pending.other', { count: 12 })).toBe('12 scans waiting to sync');
  });

  it('a missing value leaves the placeholder visible instead of printing "undefined"', () => {
    expect(interpolate('Gate {gate}', {})).toBe('Gate {gate}');
  });

  it('values are inserted as text, never re-interpolated', () => {
    expect(t('lookup.holder', { name: '{time} <b>' })).toBe('Holder: {time} <b>');
  });

  it('placeholders use only word characters, so a translator cannot half-break them unnoticed', () => {
    for (const [key, text] of Object.entries(en)) {
      expect(text.match(/[{}]/g)?.length ?? 0, key).toBe(placeholdersOf(text).length * 2);
    }
  });

  it('a translation is one object of the same type', () => {
    const shouty: Catalogue = Object.fromEntries(
      Object.entries(en).map(([k, v]) => [k, v.toUpperCase().replace(/\{(\w+)\}/g, (_m, n: string) => `{${n.toLowerCase()}}`)]),
    ) as Catalogue;
    const tr = createTranslator(shouty);
    expect(tr('reason.already_used_at', { time: '19:42' })).toBe('ALREADY USED AT 19:42');
  });
});
