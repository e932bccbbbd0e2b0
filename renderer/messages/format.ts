/**
 * Typed access to the message catalogue: a key that does not exist, a missing
 * placeholder value or an unknown one is a compile error, not a blank screen.
 */
import { en } from './en.js';

export type MessageKey = keyof typeof en;

/** The shape every translation has: the same keys as English, any wording. */
export type Catalogue = { readonly [K in MessageKey]: string };

/** `'Already used at {time}'` → `'time'`. */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** Keys without placeholders take no argument; the others take exactly their values. */
export type ParamsFor<K extends MessageKey> = [Placeholders<(typeof en)[K]>] extends [never]
  ? []
  : [params: Record<Placeholders<(typeof en)[K]>, string | number>];

/** Keys whose text has no placeholder: safe to pick from a table and pass alone. */
export type PlainMessageKey = { [K in MessageKey]: ParamsFor<K> extends [] ? K : never }[MessageKey];

export type Translate = <K extends MessageKey>(key: K, ...params: ParamsFor<K>) => string;

const PLACEHOLDER = /\{(\w+)\}/g;

/** The names of a text's `{placeholders}`, in order (tests compare translations with English). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export function interpolate(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  // A placeholder without a value stays visible, so a translation slip shows up in testing instead of vanishing.
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

export function createTranslator(catalogue: Catalogue): Translate {
  return (key, ...params) => interpolate(catalogue[key], params[0]);
}

/** The kiosk's language. Swapping the catalogue here is the whole of a translation. */
export const t: Translate = createTranslator(en);
export const LOCALE: string = en['meta.locale'];
