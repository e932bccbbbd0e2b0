/** renderer/view/scanner-view-model.ts: the calibration diagnosis in plain words. */
import { describe, expect, it } from 'vitest';
import type { KioskState, ScannerDiagnosis } from '../../../main/kiosk/kiosk-api.js';
import { diagnosisView, hidScannerLine, translatingText } from '../../../renderer/view/scanner-view-model.js';

const UTC = { timeZone: 'UTC' };

const german: ScannerDiagnosis = {
  input_path: 'window',
  layout: 'de',
  differences: [
    { kind: 'swapped', a: 'y', b: 'z' },
    { kind: 'typed_as', expected: '-', received: 'ß' },
    { kind: 'typed_as', expected: '_', received: '?' },
  ],
  collisions: [],
  translation: 'learned',
  terminator: 'cr',
  prefix: [],
  suffix: [],
  characters: 71,
  ms_per_character: 2,
  ms_per_code: 140,
  hid_layout: null,
  symbology_id: null,
  calibrated_at: '2026-11-24T14:02:00.000Z',
};

describe('diagnosis view', () => {
  it('names the path, the layout with its differences (first), the terminator, framing and speed, and the fix', () => {
    const view = diagnosisView(german, UTC);
    expect(view.when).toBe('Calibration code read at 14:02');
    expect(view.lines).toEqual([
      'Input: keyboard wedge (the scanner types into this window)',
      'Keyboard layout seen through the scanner: German QWERTZ — y and z swapped, - typed as ß, _ typed as ?',
      'Ends each code with: Enter (CR)',
      'Adds nothing before or after the code',
      'Speed: 2 ms per character, 140 ms for this code (71 characters)',
    ]);
    expect(view.verdict).toMatch(/^Fixed: this kiosk now translates/);
    expect(view.dataTranslation).toBe('learned');
  });

  it('HID-POS: report layout, symbology, prefix; US layout needs nothing', () => {
    const view = diagnosisView(
      {
        ...german,
        input_path: 'hid-pos',
        layout: 'us',
        differences: [],
        translation: 'not_needed',
        terminator: 'report_end',
        prefix: [']Q1'],
        hid_layout: 'Newland (63-byte)',
        symbology_id: ']Q1',
      },
      UTC,
    );
    expect(view.lines).toContain('Input: HID-POS (read directly over USB)');
    expect(view.lines).toContain('Ends each code with: the end of its USB reports');
    expect(view.lines).toContain('Adds before each code: ]Q1');
    expect(view.lines).toContain('USB report layout: Newland (63-byte)');
    expect(view.lines).toContain('Keyboard layout seen through the scanner: US — codes arrive unchanged');
    expect(view.verdict).toBe('Nothing to fix: tickets are read as printed.');
  });

  it('says what cannot be fixed, and how to fix it on the scanner', () => {
    const view = diagnosisView(
      { ...german, layout: 'unknown', translation: 'impossible', collisions: [{ received: '-', expected: ['-', '_'] }] },
      UTC,
    );
    expect(view.verdict).toBe(
      'Cannot be fixed on this kiosk: - _ all arrive as -. Set the scanner’s keyboard layout (country) to match this computer, or switch the scanner to HID-POS mode.',
    );
  });

  it('long lists of differences end with "and N more"', () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ kind: 'typed_as' as const, expected: String(i), received: 'x' + i }));
    expect(diagnosisView({ ...german, layout: 'fr', differences: many }, UTC).lines[1]).toMatch(/, and 3 more$/);
  });
});

describe('USB scanner line and calibration status', () => {
  const state = (hid: KioskState['hid_scanner'], calibration: KioskState['calibration'] = null) =>
    ({ hid_scanner: hid, calibration }) as KioskState;

  it('Setup always shows it; Ready only a problem', () => {
    const snapi = state({ state: 'disconnected', reason: 'unreadable_mode', message: 'Scanner Zebra DS2208 is in SNAPI mode: scan …' });
    expect(hidScannerLine(snapi, 'ready')).toEqual({ text: 'USB scanner: Scanner Zebra DS2208 is in SNAPI mode: scan …', problem: true });
    const none = state({ state: 'disconnected', reason: 'no_scanner', message: 'No scanner connected' });
    expect(hidScannerLine(none, 'ready')).toBeNull();
    expect(hidScannerLine(none, 'setup')).toEqual({ text: 'USB scanner: No scanner connected', problem: false });
    expect(hidScannerLine(state(null), 'setup')).toBeNull();
  });

  it('names the translated input paths', () => {
    expect(translatingText(state(null, { diagnosis: german, translating: ['window', 'hid-keyboard'] }))).toBe(
      'Scanner calibration is active: codes from the keyboard wedge and the HID keyboard scanner are translated.',
    );
    expect(translatingText(state(null, { diagnosis: german, translating: [] }))).toBeNull();
  });
});
