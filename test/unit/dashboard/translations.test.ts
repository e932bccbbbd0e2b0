/**
 * The dashboard's translations say everything English says (the same rule
 * as the kiosk's, test/unit/renderer/translation-check.ts), the language
 * comes from the menu or the browser, and numbers, times and sentences
 * follow it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  describeAlert,
  formatAge,
  formatClock,
  formatCount,
  formatDateTime,
  formatDuration,
  formatPercent,
} from '../../../dashboard/format.js';
import { en } from '../../../dashboard/messages/en.js';
import { CATALOGUES, initialLanguage, LANGUAGES, setLanguage, t } from '../../../dashboard/messages/format.js';
import type { AlertView } from '../../../issuer/dashboard-api.js';
import { expectCompleteTranslation } from '../renderer/translation-check.js';

afterEach(() => setLanguage('en'));

describe('dashboard translations', () => {
  it.each(LANGUAGES.filter((code) => code !== 'en'))('%s has every key of English, no other, with the same placeholders', (code) => {
    expectCompleteTranslation(en, CATALOGUES[code], code);
  });

  it('each catalogue names its own locale', () => {
    expect(LANGUAGES.map((code) => CATALOGUES[code]['meta.locale'].split('-')[0])).toEqual([...LANGUAGES]);
  });

  it('pieces of sentences keep their leading space or comma in every language', () => {
    const pieces = Object.keys(en).filter((key) => /^[ ,]/.test(en[key as keyof typeof en]));
    expect(pieces.length).toBeGreaterThan(3);
    for (const code of LANGUAGES)
      for (const key of pieces) expect(CATALOGUES[code][key as keyof typeof en], `${code} ${key}`).toMatch(/^[ ,]/);
  });
});

describe('choosing the language', () => {
  it('the menu’s choice first, then the browser’s first language we speak, then English', () => {
    expect(initialLanguage('fr', ['de-DE', 'en'])).toBe('fr');
    expect(initialLanguage(null, ['de-AT', 'en'])).toBe('de');
    expect(initialLanguage(null, ['nl-NL', 'es-MX', 'en'])).toBe('es');
    expect(initialLanguage('klingon', ['pt-BR'])).toBe('en');
    expect(initialLanguage(null, [])).toBe('en');
  });
});

describe('in German', () => {
  it('numbers, percentages, ages and durations', () => {
    setLanguage('de');
    expect(formatCount(12345)).toBe('12.345');
    expect(formatPercent(1, 3)).toBe('33,3 %');
    expect(formatPercent(9999, 10000)).toBe('99,9 %');
    expect(formatAge(185_000)).toBe('vor 3 min');
    expect(formatDuration(185)).toBe('3 min 5 s');
    expect(t('tile.scanners.value', { online: 2, total: 3 })).toBe('2 von 3');
  });

  it('times on a 24-hour clock in every language', () => {
    const iso = '2026-12-01T19:04:09';
    for (const code of LANGUAGES) {
      setLanguage(code);
      expect(formatClock(iso), code).toBe('19:04:09');
      expect(formatDateTime(iso), code).toMatch(/19:04/);
    }
    setLanguage('de');
    expect(formatDateTime(iso)).toBe('1. Dez. 2026, 19:04');
  });

  it('an alert is one German sentence with its facts', () => {
    setLanguage('de');
    const alert: AlertView = {
      id: 1,
      kind: 'wrong_event',
      at: '2026-12-01T19:10:00Z',
      tid: '01TID',
      holder_name: 'Ada Lovelace',
      ticket_type: 'VIP',
      ticket_event_name: 'Samstagsmatinee',
      scanner_id: 'scanner-1',
      scanner_name: 'Nordtür',
      gate_id: 'Nord',
      scanned_at: null,
      delay_seconds: null,
      first_check_in: null,
    } as AlertView;
    expect(describeAlert(alert)).toBe(
      'Ada Lovelace (Ticket 01TID) gilt für „Samstagsmatinee“, wurde an Eingang Nord von Nordtür vorgezeigt und abgewiesen.',
    );
  });
});
