/**
 * Every translation of the kiosk's catalogue says everything English says:
 * the same keys (none missing, none extra), the same placeholders, no empty
 * text. The dashboard's catalogues are held to the same rule in
 * test/unit/dashboard/translations.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { en } from '../../../renderer/messages/en.js';
import {
  CATALOGUES,
  inLanguage,
  LANGUAGES,
  language,
  locale,
  placeholdersOf,
  setLanguage,
  t,
  translatorFor,
} from '../../../renderer/messages/format.js';
import { formatClockTime, formatEventDate } from '../../../renderer/view/dates.js';
import { doorLanguages } from '../../../renderer/view/language.js';
import { verdictViewIn } from '../../../renderer/view/verdict-view-model.js';
import { expectCompleteTranslation } from './translation-check.js';

describe('kiosk translations', () => {
  it.each(LANGUAGES.filter((code) => code !== 'en'))('%s has every key of English, no other, with the same placeholders', (code) => {
    expectCompleteTranslation(en, CATALOGUES[code], code);
  });

  it('each catalogue names its own locale', () => {
    expect(LANGUAGES.map((code) => CATALOGUES[code]['meta.locale'].split('-')[0])).toEqual([...LANGUAGES]);
  });

  it('the translator switches at run time, and dates follow with a 24-hour clock', () => {
    try {
      expect(setLanguage('de')).toBe(true);
      expect(setLanguage('de')).toBe(false);
      expect(language()).toBe('de');
      expect(locale()).toBe('de-DE');
      expect(t('reason.already_used_at', { time: '19:42' })).toBe('Bereits entwertet um 19:42');
      expect(formatClockTime('2026-07-18T19:42:00Z', { timeZone: 'UTC' })).toBe('19:42');
      expect(formatEventDate('2026-07-18T19:30:00Z', { timeZone: 'UTC' })).toBe('Sa., 18. Juli 2026, 19:30');
      setLanguage('fr');
      expect(formatEventDate('2026-07-18T19:30:00Z', { timeZone: 'UTC' })).toMatch(/^sam\. 18 juil\. 2026,? 19:30$/);
      setLanguage('es');
      expect(formatClockTime('2026-07-18T07:05:00Z', { timeZone: 'UTC' })).toBe('07:05');
      expect(formatEventDate('2026-07-18T19:30:00Z', { timeZone: 'UTC' })).toMatch(/19:30/);
    } finally {
      setLanguage('en');
    }
    expect(t('verdict.admit')).toBe('ADMIT');
  });

  it('inLanguage speaks another language for one call and comes back', () => {
    expect(inLanguage('fr', () => t('verdict.refuse'))).toBe('REFUSÉ');
    expect(t('verdict.refuse')).toBe('REFUSE');
    expect(translatorFor('es')('ready.prompt')).toBe('Escanee su entrada');
  });

  it('a verdict carries the second language as its own line', () => {
    const verdict = {
      kind: 'refuse',
      reason: 'already_used',
      decided_at: '2026-07-18T19:45:00Z',
      first_used_at: '2026-07-18T19:42:00Z',
      offline: false,
      decided_by: 'issuer',
    } as const;
    const view = verdictViewIn(verdict as never, 'de', { timeZone: 'UTC' });
    expect(view.word).toBe('REFUSE');
    expect(view.reasonText).toBe('Already used at 19:42');
    expect(view.secondLanguage).toEqual({ lang: 'de', word: 'KEIN EINLASS', reasonText: 'Bereits entwertet um 19:42' });
    expect(verdictViewIn(verdict as never, null).secondLanguage).toBeUndefined();
  });

  it('the door languages are read defensively: missing or unknown means English alone', () => {
    expect(doorLanguages(null)).toEqual({ primary: 'en', secondary: null });
    expect(doorLanguages({})).toEqual({ primary: 'en', secondary: null });
    expect(doorLanguages({ language: { primary: 'tlh', secondary: 'de' } })).toEqual({ primary: 'en', secondary: null });
    expect(doorLanguages({ language: { primary: 'de', secondary: 'xx' } })).toEqual({ primary: 'de', secondary: null });
    expect(doorLanguages({ language: { primary: 'de', secondary: 'de' } })).toEqual({ primary: 'de', secondary: null });
    expect(doorLanguages({ language: { primary: 'es', secondary: 'en' } })).toEqual({ primary: 'es', secondary: 'en' });
  });

  it('placeholdersOf is what the completeness check compares', () => {
    expect(placeholdersOf(en['scanner.speed.other'])).toEqual(['perCharacter', 'perCode', 'count']);
  });
});
