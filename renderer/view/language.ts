/**
 * The door's languages, read from the kiosk's state (docs/kiosk.md
 * "Languages"). Read defensively: a state without `language` (an older core)
 * or with a language this page does not know means English alone.
 */
import { isLanguage, type Language } from '../messages/format.js';

export interface DoorLanguages {
  primary: Language;
  /** Shown as a smaller second line on the attendee's screens; null for one language. */
  secondary: Language | null;
}

export const ENGLISH_ONLY: DoorLanguages = { primary: 'en', secondary: null };

export function doorLanguages(state: object | null): DoorLanguages {
  const language = state === null ? undefined : (state as { language?: unknown }).language;
  if (typeof language !== 'object' || language === null) return ENGLISH_ONLY;
  const { primary, secondary } = language as { primary?: unknown; secondary?: unknown };
  if (!isLanguage(primary)) return ENGLISH_ONLY;
  // A second line in the first line's language would say everything twice.
  return { primary, secondary: isLanguage(secondary) && secondary !== primary ? secondary : null };
}
