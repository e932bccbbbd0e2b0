/**
 * What a scanner set to the US layout types on a computer set to German
 * (QWERTZ, DIN 2137 T1) or French (AZERTY, Windows/X11 "fr") layout.
 *
 * The scanner sends key positions (HID usages) chosen for the US layout; the
 * computer turns each position into the character its own layout has there.
 * So the tables below are indexed by physical key (KeyboardEvent.code names)
 * and give, per layout, the character [unshifted, shifted]. They cover the
 * keys that type the code alphabet (letters, digits, `-`/`_`, `.`) plus the
 * keys whose French characters are letters (`;` key → m), so that undoing a
 * layout never leaves a stray letter behind.
 */
export type ForeignLayout = 'de' | 'fr';
export const FOREIGN_LAYOUTS: readonly ForeignLayout[] = ['de', 'fr'];

type KeyCharacters = readonly [unshifted: string, shifted: string];
interface KeyPosition {
  us: KeyCharacters;
  de: KeyCharacters;
  fr: KeyCharacters;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Letter keys whose character moves: DE swaps Y and Z; FR swaps A/Q and Z/W, and M moves to the `;` key. */
const DE_LETTER: Readonly<Record<string, string>> = { y: 'z', z: 'y' };
const FR_LETTER: Readonly<Record<string, KeyCharacters>> = { a: ['q', 'Q'], q: ['a', 'A'], w: ['z', 'Z'], z: ['w', 'W'], m: [',', '?'] };

/** Number row keys 1..0: shifted on US and DE, unshifted digits only with Shift on FR. */
const US_DIGITS_SHIFTED = '!@#$%^&*()';
const DE_DIGITS_SHIFTED = '!"§$%&/()=';
const FR_DIGITS_UNSHIFTED = '&é"\'(-è_çà';

function letterKey(letter: string): KeyPosition {
  const de = DE_LETTER[letter] ?? letter;
  return {
    us: [letter, letter.toUpperCase()],
    de: [de, de.toUpperCase()],
    fr: FR_LETTER[letter] ?? [letter, letter.toUpperCase()],
  };
}

function digitKey(index: number): KeyPosition {
  const digit = '1234567890'[index]!;
  return {
    us: [digit, US_DIGITS_SHIFTED[index]!],
    de: [digit, DE_DIGITS_SHIFTED[index]!],
    fr: [FR_DIGITS_UNSHIFTED[index]!, digit],
  };
}

export const KEY_POSITIONS: readonly KeyPosition[] = [
  ...[...LETTERS].map(letterKey),
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(digitKey),
  // Minus (right of 0): DE ß/?, FR )/°.
  { us: ['-', '_'], de: ['ß', '?'], fr: [')', '°'] },
  // Period (right of comma): DE ./:, FR :/ (the FR full stop needs Shift on the key left of it).
  { us: ['.', '>'], de: ['.', ':'], fr: [':', '/'] },
  // Semicolon (right of L): DE ö/Ö, FR m/M.
  { us: [';', ':'], de: ['ö', 'Ö'], fr: ['m', 'M'] },
];

function characterMap(from: 'us' | ForeignLayout, to: 'us' | ForeignLayout): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const key of KEY_POSITIONS) {
    for (const shift of [0, 1] as const) map.set(key[from][shift], key[to][shift]);
  }
  return map;
}

const US_TO: Readonly<Record<ForeignLayout, ReadonlyMap<string, string>>> = { de: characterMap('us', 'de'), fr: characterMap('us', 'fr') };
const TO_US: Readonly<Record<ForeignLayout, ReadonlyMap<string, string>>> = { de: characterMap('de', 'us'), fr: characterMap('fr', 'us') };

/** What a US-layout scanner's `text` arrives as on a `layout` computer. Characters off the tables pass unchanged. */
export function mangleForLayout(text: string, layout: ForeignLayout): string {
  return [...text].map((c) => US_TO[layout].get(c) ?? c).join('');
}

/** The US text that would arrive as `text` on a `layout` computer, or null when some character cannot come from these keys. */
export function unmangleFromLayout(text: string, layout: ForeignLayout): string | null {
  let out = '';
  for (const c of text) {
    const us = TO_US[layout].get(c);
    if (us === undefined) return null;
    out += us;
  }
  return out;
}
