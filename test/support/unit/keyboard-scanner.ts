/**
 * What a scanner in keyboard mode sends for a text: HID keyboard boot reports,
 * one press and one release per character, then Enter. The keys come from the
 * kiosk's own US layout table (main/kiosk/scanner/us-keyboard-layout.ts), read
 * backwards, so this can only type what the decoder can read.
 */
import { usLayoutCharacter } from '../../../main/kiosk/scanner/us-keyboard-layout.js';

const LEFT_SHIFT = 0x02;
const ENTER = 0x28;
const FIRST_KEY = 0x04;
const LAST_KEY = 0x38;

const keyFor = new Map<string, [usage: number, shift: boolean]>();
for (const shift of [false, true]) {
  for (let usage = FIRST_KEY; usage <= LAST_KEY; usage++) {
    const character = usLayoutCharacter(usage, shift);
    if (character !== null && !keyFor.has(character)) keyFor.set(character, [usage, shift]);
  }
}

function bootReport(modifiers: number, key = 0): Uint8Array {
  const report = new Uint8Array(8);
  report[0] = modifiers;
  report[2] = key;
  return report;
}

export function typedAsBootReports(text: string): Uint8Array[] {
  const reports: Uint8Array[] = [];
  for (const character of text) {
    const key = keyFor.get(character);
    if (!key) throw new Error(`no US key types ${JSON.stringify(character)}`);
    reports.push(bootReport(key[1] ? LEFT_SHIFT : 0, key[0]), bootReport(0));
  }
  reports.push(bootReport(0, ENTER), bootReport(0));
  return reports;
}
