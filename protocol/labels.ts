/**
 * What a label may hold: holder names, event names, venues, gates, ticket
 * types and revocation reasons are shown to door staff, printed on tickets
 * and exported to spreadsheets (docs/issuer.md "Threats handled"); the kiosk
 * applies the same rules to what a LAN peer says of its gate and scanner
 * (docs/protocol.md "LAN messages between kiosks").
 *
 * Refused: control characters (C0, DEL, C1: a NUL reaches the CSV, a CR
 * breaks a line), line and paragraph separators, and the bidirectional
 * controls that reorder text on screen (Trojan Source, CVE-2021-42574), so a
 * name cannot display as something other than what it is. Kept: every
 * letter, mark, digit, symbol and emoji, including the zero-width joiner
 * emoji sequences need. Pure.
 */

/** C0 controls, DEL, C1 controls: Unicode's Cc category is exactly these. */
const CONTROL = /\p{Cc}/u;
/** ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI, line and paragraph separators. */
const BIDI_OR_SEPARATOR = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** Why `value` cannot be a label, or null. Names the first bad character by code point, never quotes the value. */
export function labelCharacterProblem(value: string): string | null {
  let index = 0;
  for (const character of value) {
    index += 1;
    const codePoint = character.codePointAt(0)!;
    const name = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
    if (CONTROL.test(character)) return `contains a control character (${name}) at character ${index}`;
    if (BIDI_OR_SEPARATOR.test(character)) return `contains an invisible direction or line control (${name}) at character ${index}`;
  }
  return null;
}
