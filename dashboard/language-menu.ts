/**
 * The dashboard's language: the browser's (navigator.languages) unless the
 * language menu chose one, which localStorage remembers on this computer.
 * Choosing reloads the page: every word is drawn again in the new language,
 * and the sign-in (sessionStorage) and the chosen event survive the reload.
 */
import { h } from './dom.js';
import { initialLanguage, language, LANGUAGE_KEY, LANGUAGE_NAMES, LANGUAGES, setLanguage, t, type Language } from './messages/format.js';

function savedLanguage(): string | null {
  try {
    return localStorage.getItem(LANGUAGE_KEY);
  } catch {
    return null; // Storage blocked: the browser's language it is.
  }
}

/** Picks the language before anything is drawn, and labels the page in it. */
export function startLanguage(): void {
  setLanguage(initialLanguage(savedLanguage(), navigator.languages ?? [navigator.language]));
  document.documentElement.lang = language();
  document.title = t('app.title');
}

/** The language menu: each language named in itself. */
export function languageMenu(): HTMLElement {
  const select = h(
    'select',
    { id: 'language-select', 'aria-label': t('language.label') },
    ...LANGUAGES.map((code) => h('option', { value: code, lang: code, selected: code === language() }, LANGUAGE_NAMES[code])),
  );
  select.addEventListener('change', () => {
    const chosen = select.value as Language;
    try {
      localStorage.setItem(LANGUAGE_KEY, chosen);
    } catch {
      // Not remembered, but still switched for this page.
    }
    window.location.reload();
  });
  return h('label', { class: 'language-picker' }, h('span', { 'aria-hidden': 'true' }, '🌐'), select);
}
