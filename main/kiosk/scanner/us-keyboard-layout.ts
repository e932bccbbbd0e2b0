/**
 * US keyboard layout for HID Keyboard/Keypad page (0x07) usage ids, as a
 * scanner in keyboard mode types them (HID Usage Tables 1.4, section 10
 * "Keyboard/Keypad Page"). Scanners must be set to the US layout: the same
 * usage id means another character on other layouts (e.g. 0x1C is 'y' in US
 * and 'z' in German), and the kiosk cannot know which one the scanner assumed.
 */

import type { ScanTerminator } from './scan-event.js';

const RETURN = 0x28;
const TAB = 0x2b;
const KEYPAD_ENTER = 0x58;
const LETTER_I = 0x0c;
const LETTER_J = 0x0d;
const LETTER_M = 0x10;

/**
 * The terminator a key press is, or null. Keyboard emulation of control
 * characters is Ctrl plus the letter: CR is Ctrl+M, LF Ctrl+J, Tab Ctrl+I
 * (ASCII: the letter's code minus 0x40).
 */
export function terminatorKey(usage: number, ctrl: boolean): Exclude<ScanTerminator, 'crlf' | 'report_end' | 'pause'> | null {
  if (!ctrl) {
    if (usage === RETURN || usage === KEYPAD_ENTER) return 'cr';
    if (usage === TAB) return 'tab';
    return null;
  }
  if (usage === LETTER_M) return 'cr';
  if (usage === LETTER_J) return 'lf';
  if (usage === LETTER_I) return 'tab';
  return null;
}

/** ASCII names of the control characters 0x00..0x1F (also the HID-POS decoder's, for a control character in a scan). */
export const CONTROL_NAMES = [
  'NUL',
  'SOH',
  'STX',
  'ETX',
  'EOT',
  'ENQ',
  'ACK',
  'BEL',
  'BS',
  'HT',
  'LF',
  'VT',
  'FF',
  'CR',
  'SO',
  'SI',
  'DLE',
  'DC1',
  'DC2',
  'DC3',
  'DC4',
  'NAK',
  'SYN',
  'ETB',
  'CAN',
  'EM',
  'SUB',
  'ESC',
  'FS',
  'GS',
  'RS',
  'US',
] as const;

/** Ctrl+[ ESC, Ctrl+\ FS, Ctrl+] GS, Ctrl+^ RS (Shift+6), Ctrl+_ US (Shift+-), Ctrl+@ NUL (Shift+2). */
const CONTROL_PUNCTUATION: ReadonlyMap<number, readonly [string, number, boolean]> = new Map([
  [0x2f, ['[', 0x1b, false]],
  [0x31, ['\\', 0x1c, false]],
  [0x30, [']', 0x1d, false]],
  [0x23, ['^', 0x1e, true]],
  [0x2d, ['_', 0x1f, true]],
  [0x1f, ['@', 0x00, true]],
]);

/**
 * "Ctrl+B (STX)": the name of the control character a Ctrl chord types, as
 * scanners send prefixes and suffixes in keyboard mode; null when the chord
 * types none.
 */
export function controlChordName(usage: number, shift: boolean): string | null {
  if (usage >= LETTER_A && usage <= LETTER_Z) {
    const letter = String.fromCharCode(0x41 + (usage - LETTER_A));
    return `Ctrl+${letter} (${CONTROL_NAMES[usage - LETTER_A + 1]})`;
  }
  const punctuation = CONTROL_PUNCTUATION.get(usage);
  if (punctuation && (!punctuation[2] || shift)) return `Ctrl+${punctuation[0]} (${CONTROL_NAMES[punctuation[1]]})`;
  return null;
}

/**
 * Usage ids 0x01..0x03 are ErrorRollOver, POSTFail and ErrorUndefined: a
 * report carrying them says the key state is unknown (phantom state), not
 * that a key was pressed.
 */
export function isKeyboardErrorCode(usage: number): boolean {
  return usage >= 0x01 && usage <= 0x03;
}

const LETTER_A = 0x04;
const LETTER_Z = 0x1d;
const DIGIT_1 = 0x1e;
const DIGIT_0 = 0x27;
const KEYPAD_1 = 0x59;
const KEYPAD_0 = 0x62;

/** Digits row 1..0 with their shifted symbols (usage 0x1E..0x27). */
const DIGIT_ROW = '1234567890';
const DIGIT_ROW_SHIFTED = '!@#$%^&*()';

/** Punctuation keys: [unshifted, shifted]. */
const PUNCTUATION: ReadonlyMap<number, readonly [string, string]> = new Map([
  [0x2c, [' ', ' ']], // Spacebar
  [0x2d, ['-', '_']],
  [0x2e, ['=', '+']],
  [0x2f, ['[', '{']],
  [0x30, [']', '}']],
  [0x31, ['\\', '|']],
  [0x33, [';', ':']],
  [0x34, ["'", '"']],
  [0x35, ['`', '~']],
  [0x36, [',', '<']],
  [0x37, ['.', '>']],
  [0x38, ['/', '?']],
]);

/** Keypad keys (scanners "emulate keypad" for digits); NumLock is assumed on. Shift does not change them. */
const KEYPAD: ReadonlyMap<number, string> = new Map([
  [0x54, '/'],
  [0x55, '*'],
  [0x56, '-'],
  [0x57, '+'],
  [0x63, '.'],
]);

/** The character a key types on a US layout, or null for keys that type none. */
export function usLayoutCharacter(usage: number, shift: boolean): string | null {
  if (usage >= LETTER_A && usage <= LETTER_Z) {
    const letter = String.fromCharCode('a'.charCodeAt(0) + (usage - LETTER_A));
    return shift ? letter.toUpperCase() : letter;
  }
  if (usage >= DIGIT_1 && usage <= DIGIT_0) {
    return (shift ? DIGIT_ROW_SHIFTED : DIGIT_ROW)[usage - DIGIT_1] ?? null;
  }
  if (usage >= KEYPAD_1 && usage <= KEYPAD_0) return DIGIT_ROW[usage - KEYPAD_1] ?? null;
  const punctuation = PUNCTUATION.get(usage);
  if (punctuation) return shift ? punctuation[1] : punctuation[0];
  return KEYPAD.get(usage) ?? null;
}
