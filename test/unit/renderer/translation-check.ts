/** The completeness rule for a translation, shared by the kiosk's and the dashboard's catalogue tests. */
import { expect } from 'vitest';

const PLACEHOLDER = /\{(\w+)\}/g;
const placeholders = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!).sort();

/** Fails naming each key missing from `translation`, each extra one, each placeholder set that differs, each empty text. */
export function expectCompleteTranslation(
  english: Readonly<Record<string, string>>,
  translation: Readonly<Record<string, string>>,
  code: string,
): void {
  const missing = Object.keys(english).filter((key) => !Object.hasOwn(translation, key));
  const extra = Object.keys(translation).filter((key) => !Object.hasOwn(english, key));
  expect(missing, `${code}: keys of English missing`).toEqual([]);
  expect(extra, `${code}: keys English does not have`).toEqual([]);
  const placeholderMismatches = Object.keys(english)
    .filter((key) => placeholders(english[key]!).join() !== placeholders(translation[key]!).join())
    .map((key) => `${key}: ${english[key]} ≠ ${translation[key]}`);
  expect(placeholderMismatches, `${code}: placeholders differ`).toEqual([]);
  // Braces only as placeholders, so a half-broken one ("{time" ) cannot hide.
  const stray = Object.entries(translation).filter(([, text]) => (text.match(/[{}]/g)?.length ?? 0) !== placeholders(text).length * 2);
  expect(stray, `${code}: stray braces`).toEqual([]);
  const empty = Object.entries(translation)
    .filter(([key, text]) => text.trim() === '' && english[key]!.trim() !== '')
    .map(([key]) => key);
  expect(empty, `${code}: empty texts`).toEqual([]);
}
