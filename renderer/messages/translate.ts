/**
 * The generic half of a message catalogue: `{placeholder}` interpolation and
 * a typed translator for any catalogue object. Nothing here knows the kiosk's
 * words; ./format.ts applies it to them.
 *
 * The admin dashboard's catalogue uses this file too (dashboard/messages/format.ts):
 * it is the one module of the kiosk page the layer rule (lint/layers.js) lets
 * the dashboard import, since it knows neither page.
 */

/** `'Already used at {time}'` → `'time'`. */
export type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** Keys without placeholders take no argument; the others take exactly their values. */
export type ParamsOf<C extends Record<string, string>, K extends keyof C> = [Placeholders<C[K]>] extends [never]
  ? []
  : [params: Record<Placeholders<C[K]>, string | number>];

/** A translation of catalogue C: the same keys, any wording. */
export type TranslationOf<C extends Record<string, string>> = { readonly [K in keyof C]: string };

export type TranslatorOf<C extends Record<string, string>> = <K extends keyof C & string>(key: K, ...params: ParamsOf<C, K>) => string;

const PLACEHOLDER = /\{(\w+)\}/g;

/** The names of a text's `{placeholders}`, in order (tests compare translations with English). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export function interpolate(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  // A placeholder without a value stays visible, so a translation slip shows up in testing instead of vanishing.
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

export function createTranslator<C extends Record<string, string>>(catalogue: TranslationOf<C>): TranslatorOf<C> {
  return (key, ...params) => interpolate(catalogue[key], params[0]);
}

/**
 * The first of the user's preferred languages (BCP 47 tags, best first, as
 * `navigator.languages`) that is available, matched on the primary subtag
 * (`de-AT` → `de`); null when none is.
 */
export function matchLanguage<L extends string>(preferred: readonly string[], available: readonly L[]): L | null {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    const found = available.find((language) => language === primary);
    if (found) return found;
  }
  return null;
}
