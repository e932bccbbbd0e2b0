/**
 * Typed access to the kiosk's message catalogues: a key that does not exist,
 * a missing placeholder value or an unknown one is a compile error, not a
 * blank screen. The language can change at run time (setLanguage): `t` always
 * speaks the current one.
 */
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { Catalogue, MessageKey } from './catalogue.js';
import { createPluralTranslator, createTranslator, type ParamsOf, type PluralTranslatorOf, type TranslatorOf } from './translate.js';

export { createTranslator, interpolate, placeholdersOf } from './translate.js';
export type { Catalogue, MessageKey } from './catalogue.js';

export type ParamsFor<K extends MessageKey> = ParamsOf<typeof en, K>;

/** Keys whose text has no placeholder: safe to pick from a table and pass alone. */
export type PlainMessageKey = { [K in MessageKey]: ParamsFor<K> extends [] ? K : never }[MessageKey];

export type Translate = TranslatorOf<typeof en>;
export type TranslateCount = PluralTranslatorOf<typeof en>;

/** The languages the kiosk speaks (docs/kiosk.md "Languages"); adding one is one file and one line here. */
export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

export const CATALOGUES: Readonly<Record<Language, Catalogue>> = { en, de, fr, es };

export const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

// A key a translation lacks (a new English text not translated yet) shows in English rather than
// breaking the screen; the completeness test (test/unit/renderer/translations.test.ts) fails meanwhile.
const translators = Object.fromEntries(
  LANGUAGES.map((code) => [code, createTranslator<typeof en>({ ...en, ...CATALOGUES[code] })]),
) as Record<Language, Translate>;
const countTranslators = Object.fromEntries(
  LANGUAGES.map((code) => [code, createPluralTranslator<typeof en>({ ...en, ...CATALOGUES[code] }, CATALOGUES[code]['meta.locale'])]),
) as Record<Language, TranslateCount>;

let current: Language = 'en';

/** The kiosk's language now. */
export const language = (): Language => current;

/** Switches every later `t` call (and date) to this language; true when it changed. */
export function setLanguage(next: Language): boolean {
  if (next === current) return false;
  current = next;
  return true;
}

/** The kiosk's words, in its current language. */
export const t: Translate = (key, ...params) => translators[current](key, ...params);

/**
 * A counted text in the current language, its form chosen by the language's plural rule: `tn('ready.pending', 3)`
 * (the keys `ready.pending.one`, `.other`, maybe `.zero`; docs/kiosk.md "Counted texts").
 */
export const tn: TranslateCount = (base, count, ...params) => countTranslators[current](base, count, ...params);

/** The words of one language, whatever the current one is. */
export const translatorFor = (language: Language): Translate => translators[language];

/** BCP 47 locale of the current language, for dates, times and numbers. */
export const locale = (): string => CATALOGUES[current]['meta.locale'];

/** Runs `render` with `language` as the current language (synchronously), e.g. for a second line in another language. */
export function inLanguage<T>(language: Language, render: () => T): T {
  const before = current;
  current = language;
  try {
    return render();
  } finally {
    current = before;
  }
}
