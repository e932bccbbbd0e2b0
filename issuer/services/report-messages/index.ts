/**
 * The after-event report's languages (docs/issuer.md "After-event report"): English, German, French and
 * Spanish, as the dashboard and the kiosk speak. One catalogue per language in this folder; ./en.ts is the
 * key set. Which language a report is in: `--lang`, else the environment's (LC_ALL, LC_MESSAGES, LANG, the
 * POSIX order) when it is one of the four, else English.
 */
import { de } from './de.js';
import { en, type ReportMessages } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';

export type { Plural, PluralKey, ReportMessages, TextKey } from './en.js';

export const REPORT_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

export const REPORT_CATALOGUES: Readonly<Record<ReportLanguage, ReportMessages>> = { en, de, fr, es };

/** BCP 47 locale for numbers, dates and times (the same as the dashboard's 'meta.locale'; 24-hour clock in en-GB). */
export const REPORT_LOCALES: Readonly<Record<ReportLanguage, string>> = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR', es: 'es-ES' };

export function isReportLanguage(value: string): value is ReportLanguage {
  return (REPORT_LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language the environment asks for, when it is one of the four: the first set of LC_ALL, LC_MESSAGES and
 * LANG (POSIX: an empty one counts as unset), its language part (`de_AT.UTF-8` → `de`). Null for C, POSIX,
 * another language or nothing set.
 */
export function languageFromEnvironment(env: NodeJS.ProcessEnv): ReportLanguage | null {
  const setting = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined && value !== '');
  const language = setting?.split(/[_.@-]/)[0]?.toLowerCase() ?? '';
  return isReportLanguage(language) ? language : null;
}

const PLACEHOLDER = /\{(\w+)\}/g;

/** The names of a text's `{placeholders}`, in order (the catalogue test compares translations with English). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** Fills `{name}` placeholders; one without a value stays visible, so a translation slip shows in testing. */
export function fill(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}
