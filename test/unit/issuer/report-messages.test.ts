/**
 * The after-event report's languages (docs/issuer.md "After-event report"): the four catalogues have the same
 * keys, shapes and placeholders as English and no empty text; the report's language is chosen from --lang, then
 * the environment; and a report rendered in German, French or Spanish speaks it, numbers and times included.
 */
import { describe, expect, test } from 'vitest';
import { reportLanguage } from '../../../issuer/cli/report-command.js';
import { AdminError } from '../../../issuer/error-catalogue.js';
import { renderReportHtml } from '../../../issuer/services/report-html.js';
import { SAMPLE_REPORT } from '../../support/unit/report-data.js';
import {
  languageFromEnvironment,
  placeholdersOf,
  REPORT_CATALOGUES,
  REPORT_LANGUAGES,
  type Plural,
} from '../../../issuer/services/report-messages/index.js';

const en = REPORT_CATALOGUES.en as Record<string, string | Plural>;

/** A text's forms: itself, or a plural's one and other. */
const forms = (value: string | Plural): Record<string, string> => (typeof value === 'string' ? { text: value } : { ...value });
const placeholders = (text: string): string[] => [...new Set(placeholdersOf(text))].sort();

describe.each(REPORT_LANGUAGES.filter((language) => language !== 'en'))('the %s catalogue', (language) => {
  const catalogue = REPORT_CATALOGUES[language] as Record<string, string | Plural>;

  test('has exactly the English keys, a plural where English has one', () => {
    expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en)) expect(Object.keys(forms(catalogue[key]!)), key).toEqual(Object.keys(forms(en[key]!)));
  });

  test('keeps the placeholders of each English text', () => {
    for (const [key, value] of Object.entries(en))
      for (const [form, text] of Object.entries(forms(value)))
        expect(placeholders(forms(catalogue[key]!)[form]!), `${key} ${form}`).toEqual(placeholders(text));
  });
});

test('no catalogue has an empty text', () => {
  for (const language of REPORT_LANGUAGES)
    for (const [key, value] of Object.entries(REPORT_CATALOGUES[language]))
      for (const text of Object.values(forms(value))) expect(text.trim(), `${language} ${key}`).not.toBe('');
});

describe('the report language', () => {
  test('the environment: the first set of LC_ALL, LC_MESSAGES, LANG, when one of the four', () => {
    expect(languageFromEnvironment({ LANG: 'de_AT.UTF-8' })).toBe('de');
    expect(languageFromEnvironment({ LC_ALL: 'fr_FR.UTF-8', LC_MESSAGES: 'es_ES', LANG: 'de_DE' })).toBe('fr');
    expect(languageFromEnvironment({ LC_MESSAGES: 'es_ES.UTF-8', LANG: 'de_DE' })).toBe('es');
    // An empty variable counts as unset (POSIX).
    expect(languageFromEnvironment({ LC_ALL: '', LANG: 'es' })).toBe('es');
    // C, POSIX, another language or nothing: none of the four.
    expect(languageFromEnvironment({ LC_ALL: 'C.UTF-8', LANG: 'de_DE' })).toBeNull();
    expect(languageFromEnvironment({ LANG: 'POSIX' })).toBeNull();
    expect(languageFromEnvironment({ LANG: 'pt_BR.UTF-8' })).toBeNull();
    expect(languageFromEnvironment({})).toBeNull();
  });

  test('--lang wins over the environment; without either, English; an unknown one is refused naming the four', () => {
    expect(reportLanguage('en', { LC_ALL: 'de_DE.UTF-8' })).toBe('en');
    expect(reportLanguage('es', {})).toBe('es');
    expect(reportLanguage(undefined, { LANG: 'fr_CA.UTF-8' })).toBe('fr');
    expect(reportLanguage(undefined, { LANG: 'pt_BR.UTF-8' })).toBe('en');
    expect(reportLanguage(undefined, {})).toBe('en');
    for (const value of ['pt', 'DE', 'de-DE', ''])
      expect(() => reportLanguage(value, {}), value).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('en, de, fr, es') }) as AdminError,
      );
  });
});

describe('a report in each language', () => {
  const data = SAMPLE_REPORT;
  const render = (language: (typeof REPORT_LANGUAGES)[number]) => renderReportHtml(data, { timeZone: 'Europe/Berlin', language });
  const headings = (html: string) => [...html.matchAll(/<h[12]>([^<]*)<\/h[12]>/g)].map((match) => match[1]);

  test('English by default: the headings, plural forms, numbers as en-GB', () => {
    const html = renderReportHtml(data, { timeZone: 'Europe/Berlin' });
    expect(html).toContain('<html lang="en">');
    expect(headings(html)).toEqual([
      'After-event report: Gala',
      'Totals',
      'Arrivals per 5 minutes per gate',
      'Admitted offline',
      'Double admissions found at sync',
      'Forged, revoked and wrong-event attempts',
      'Scanner uptime',
    ]);
    expect(html).toContain('Peak minute: 20:03, 1,234 entries');
    expect(html).toContain('5.0 % of entries were admitted offline (950 of 19,000)</strong>, and 1 exit was scanned offline.');
    expect(html).toContain('1 possible offline double admission, 0 found when two copies of the issuer were merged.');
    expect(html).toContain('1 scanner; the table below has the figures.');
  });

  test.each([
    {
      language: 'de' as const,
      heading: 'Abschlussbericht: Gala',
      peak: 'Stärkste Minute: 20:03, 1.234 Eintritte',
      share: '5,0 % der Eintritte wurden offline eingelassen (950 von 19.000)</strong>, und 1 Austritt wurde offline gescannt.',
      uptime: '87,5 %',
      date: '1. Dez. 2026, 20:00:00',
    },
    {
      language: 'fr' as const,
      heading: 'Bilan de l’événement : Gala',
      peak: 'Minute la plus chargée : 20:03, 1\u202f234 entrées',
      share: '5,0 % des entrées ont été validées hors ligne (950 sur 19\u202f000)</strong>, et 1 sortie a été scannée hors ligne.',
      uptime: '87,5 %',
      date: '1 déc. 2026, 20:00:00',
    },
    {
      language: 'es' as const,
      heading: 'Informe final del evento: Gala',
      // Spanish groups thousands from five digits on (CLDR): 1234, but 19.000.
      peak: 'Minuto de más afluencia: 20:03, 1234 accesos',
      share: 'El 5,0 % de los accesos se admitieron sin conexión (950 de 19.000)</strong>, y 1 salida se escaneó sin conexión.',
      uptime: '87,5 %',
      date: '1 dic 2026, 20:00:00',
    },
  ])('$language: translated headings, no English heading left, numbers and dates for the language, every chart', (expected) => {
    const english = headings(renderReportHtml(data, { timeZone: 'Europe/Berlin' }));
    const html = render(expected.language);
    expect(html).toContain(`<html lang="${expected.language}">`);
    expect(headings(html)[0]).toBe(expected.heading);
    for (const heading of english) expect(html).not.toContain(heading);
    expect(html).toContain(expected.peak);
    expect(html).toContain(expected.share);
    expect(html).toContain(expected.uptime);
    expect(html).toContain(expected.date);
    expect(html).toContain(REPORT_CATALOGUES[expected.language].footer);
    for (const id of ['chart-arrivals', 'chart-offline-delay', 'chart-problems', 'chart-uptime']) expect(html).toContain(`<svg id="${id}"`);
    // The chart titles and descriptions (SVG <title>, <desc>) are translated too.
    expect(html).toContain(`<title id="chart-problems-title">${REPORT_CATALOGUES[expected.language]['attempts.chart.title']}</title>`);
    expect(html).not.toMatch(/<desc[^>]*>[^<]*(offline scans|the table below)[^<]*<\/desc>/);
  });
});
