/**
 * The languages the kiosk's screens speak (docs/kiosk.md "Languages"): which codes it knows, and which
 * language a stored choice means (an unknown one falls back to English, an unknown second one to none).
 * Pure, in decide/: the core reads the stored choice and saves a new one.
 */
import type { KioskLanguage, LanguageCode } from '../kiosk-api.js';

export const LANGUAGE_CODES: readonly LanguageCode[] = ['en', 'de', 'fr', 'es'];
const DEFAULT_LANGUAGE: KioskLanguage = { primary: 'en', secondary: null };

/** The language shown for a stored choice (null: none made yet). */
export function kioskLanguage(stored: { primary: string; secondary: string | null } | null): KioskLanguage {
  if (!stored || !LANGUAGE_CODES.includes(stored.primary as LanguageCode)) return DEFAULT_LANGUAGE;
  const secondary = LANGUAGE_CODES.includes(stored.secondary as LanguageCode) ? (stored.secondary as LanguageCode) : null;
  return { primary: stored.primary as LanguageCode, secondary };
}
