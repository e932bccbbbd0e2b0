/**
 * Typed access to the dashboard's message catalogues (the same scheme as the
 * kiosk's renderer/messages/format.ts): a wrong key or placeholder is a
 * compile error. The language comes from the browser (navigator.languages)
 * unless the language menu chose one, which is remembered in localStorage.
 */
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { Catalogue } from './catalogue.js';
import {
  createPluralTranslator,
  createTranslator,
  matchLanguage,
  type PluralTranslatorOf,
  type TranslatorOf,
} from '../../renderer/messages/translate.js';

export { interpolate, placeholdersOf } from '../../renderer/messages/translate.js';
export type { Catalogue, MessageKey } from './catalogue.js';
export type Translate = TranslatorOf<typeof en>;
export type TranslateCount = PluralTranslatorOf<typeof en>;

export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

export const CATALOGUES: Readonly<Record<Language, Catalogue>> = { en, de, fr, es };

/** Each language's name in itself, for the language menu. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

/** The localStorage key of the language chosen in the menu. */
export const LANGUAGE_KEY = 'ticket-issuer-admin-language';

// A key a translation lacks (a new English text not translated yet) shows in English rather than
// breaking the screen; the completeness test (test/unit/dashboard/translations.test.ts) fails meanwhile.
const translators = Object.fromEntries(
  LANGUAGES.map((code) => [code, createTranslator<typeof en>({ ...en, ...CATALOGUES[code] })]),
) as Record<Language, Translate>;
const countTranslators = Object.fromEntries(
  LANGUAGES.map((code) => [code, createPluralTranslator<typeof en>({ ...en, ...CATALOGUES[code] }, CATALOGUES[code]['meta.locale'])]),
) as Record<Language, TranslateCount>;

let current: Language = 'en';

export const language = (): Language => current;

export function setLanguage(next: Language): void {
  current = next;
}

/** The dashboard's words, in its current language. */
export const t: Translate = (key, ...params) => translators[current](key, ...params);

/**
 * A counted text in the current language, its form chosen by the language's plural rule: `tn('age.days', 3)`
 * (keys `age.days.one`, `.other`; docs/kiosk.md "Counted texts"). Pass `{ count: formatCount(n) }` for grouping.
 */
export const tn: TranslateCount = (base, count, ...params) => countTranslators[current](base, count, ...params);

/** BCP 47 locale of the current language, for dates, times and numbers. */
export const locale = (): string => CATALOGUES[current]['meta.locale'];

/** The language to start in: the one chosen in the menu, else the browser's first we speak, else English. */
export function initialLanguage(chosen: string | null, preferred: readonly string[]): Language {
  const saved = LANGUAGES.find((code) => code === chosen);
  return saved ?? matchLanguage(preferred, LANGUAGES) ?? 'en';
}
