/** A check-in rule's refusal on the Verdict screen (docs/kiosk.md "Check-in rules offline"): the rule's own words, else the catalogue's. */
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleRefusal, Verdict } from '../../../protocol/index.js';
import { setLanguage } from '../../../renderer/messages/format.js';
import { ruleWords, verdictView, verdictViewIn } from '../../../renderer/view/verdict-view-model.js';

const refusal = (rule: NonNullable<Extract<Verdict, { kind: 'refuse' }>['rule']>): Verdict => ({
  kind: 'refuse',
  reason: 'rule_refused',
  decided_at: '2026-07-10T16:30:00.000Z',
  offline: true,
  decided_by: 'rules',
  rule,
});

afterEach(() => {
  setLanguage('en');
});

describe('rule_refused on the Verdict screen', () => {
  const opens: RuleRefusal = { code: 'not_open_yet', rule: 3, name: 'Doors', message: 'Opens at 18:00', time: '18:00' };
  const vip: RuleRefusal = {
    code: 'ticket_type_not_allowed',
    rule: 0,
    name: 'VIP entrance',
    message: 'VIP entrance only',
    messages: { en: 'VIP entrance only', de: 'Nur VIP-Eingang' },
    ticket_types: ['VIP'],
  };

  it('names the rule in words, in each language', () => {
    expect(verdictView(refusal(opens))).toMatchObject({ dataReason: 'rule_refused', reasonText: 'Opens at 18:00 (Doors)' });
    setLanguage('de');
    expect(verdictView(refusal(opens)).reasonText).toBe('Öffnet um 18:00 (Doors)');
    setLanguage('fr');
    expect(verdictView(refusal(opens)).reasonText).toBe('Ouvre à 18:00 (Doors)');
    setLanguage('es');
    expect(verdictView(refusal(opens)).reasonText).toBe('Abre a las 18:00 (Doors)');
  });

  it('prefers the rules file’s own words in the screen’s language, else the generated ones', () => {
    expect(ruleWords(vip)).toBe('VIP entrance only');
    setLanguage('de');
    expect(ruleWords(vip)).toBe('Nur VIP-Eingang');
    setLanguage('fr');
    expect(ruleWords(vip)).toBe('Billets VIP uniquement');
  });

  it('the second language line says it too', () => {
    const view = verdictViewIn(refusal({ code: 'wrong_gate', rule: 1, name: 'Crew gate', message: 'Use gate C', gates: ['C'] }), 'es');
    expect(view.reasonText).toBe('Use gate C (Crew gate)');
    expect(view.secondLanguage?.reasonText).toBe('Use la puerta C (Crew gate)');
  });

  it('without the rule object: the general sentence', () => {
    const bare: Verdict = {
      kind: 'refuse',
      reason: 'rule_refused',
      decided_at: '2026-07-10T16:30:00.000Z',
      offline: false,
      decided_by: 'issuer',
    };
    expect(verdictView(bare).reasonText).toBe('Not admitted by the event’s entry rules');
  });
});
