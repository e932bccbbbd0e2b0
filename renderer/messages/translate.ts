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
 * Counted texts (docs/kiosk.md "Counted texts"): one message is several keys, `base.one`, `base.other`
 * and optionally `base.zero`, and the form is chosen by the language's own rule (Intl.PluralRules: French
 * says "0 essai", English "0 tries"). `base.zero` is used for exactly 0 when a catalogue has it (a whole
 * sentence such as "All scans synced"); a category a language has but the catalogue does not (French and
 * Spanish "many", for millions) falls back to `base.other`. The number is the placeholder `{count}`.
 */
export type PluralBase<C extends Record<string, string>> = {
  [K in keyof C & string]: K extends `${infer B}.other` ? (`${B}.one` extends keyof C ? B : never) : never;
}[keyof C & string];

/** A counted text's values: `{count}` defaults to the number itself (pass a formatted one to override). */
export type PluralParamsOf<C extends Record<string, string>, K extends keyof C> = [Exclude<Placeholders<C[K]>, 'count'>] extends [never]
  ? [params?: { count?: string | number }]
  : [params: Record<Exclude<Placeholders<C[K]>, 'count'>, string | number> & { count?: string | number }];

export type PluralTranslatorOf<C extends Record<string, string>> = <B extends PluralBase<C>>(
  base: B,
  count: number,
  ...params: PluralParamsOf<C, `${B}.other`>
) => string;

/** The key of `base` that speaks of `count` in `locale`'s plural rule, among the keys `catalogue` has. */
export function pluralKey(catalogue: Readonly<Record<string, string>>, locale: string, base: string, count: number): string {
  if (count === 0 && Object.hasOwn(catalogue, `${base}.zero`)) return `${base}.zero`;
  const form = `${base}.${new Intl.PluralRules(locale).select(count)}`;
  return Object.hasOwn(catalogue, form) ? form : `${base}.other`;
}

export function createPluralTranslator<C extends Record<string, string>>(
  catalogue: TranslationOf<C>,
  locale: string,
): PluralTranslatorOf<C> {
  const table = catalogue as Readonly<Record<string, string>>;
  return (base, count, ...params) => interpolate(table[pluralKey(table, locale, base, count)]!, { count, ...params[0] });
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
