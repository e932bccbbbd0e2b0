/** main/kiosk/decide/calibration.ts: what the calibration code tells about a scanner. */
import { describe, expect, it } from 'vitest';
import { CALIBRATION_CODE, CODE_ALPHABET } from '../../../protocol/index.js';
import { diagnose, findCalibrationCode, translate } from '../../../main/kiosk/decide/calibration.js';
import { mangleForLayout } from '../../../protocol/keyboard-layouts.js';
import type { ReadDetails } from '../../../main/kiosk/scanner/scan-event.js';

const AT = Date.parse('2026-11-24T14:00:00Z');
const TICKET = 'tkt1.eyJ2IjoxLCJpc3MiOiJodHRwczovL3RpY2tldHMuZXhhbXBsZS5vcmciLCJ0aWQiOiIwMUpaWVgifQ.qvK8-_Zy0zM9xw';

function calibrate(text: string, read?: ReadDetails) {
  const match = findCalibrationCode(text);
  if (!match) throw new Error('not recognised');
  return diagnose({ origin: 'window', match, read, atMs: AT });
}

describe('the calibration code', () => {
  it('holds every character of ticket and setup codes, once each after its prefix', () => {
    for (const c of 'tkt1.tsetup1.' + TICKET) expect(CALIBRATION_CODE).toContain(c);
    expect(new Set(CODE_ALPHABET).size).toBe(CODE_ALPHABET.length);
  });

  it('is recognised as it is, and not in tickets, setup codes or garbage', () => {
    expect(findCalibrationCode(CALIBRATION_CODE)).toMatchObject({ prefix: '', suffix: '' });
    expect(findCalibrationCode(TICKET)).toBeNull();
    expect(findCalibrationCode(TICKET.repeat(3))).toBeNull();
    expect(findCalibrationCode('x'.repeat(CALIBRATION_CODE.length))).toBeNull();
    expect(findCalibrationCode(CALIBRATION_CODE.slice(0, -1))).toBeNull();
  });

  it.each(['de', 'fr'] as const)('is recognised through a %s keyboard layout', (layout) => {
    expect(findCalibrationCode(mangleForLayout(CALIBRATION_CODE, layout))).not.toBeNull();
  });

  it('finds the scanner’s own prefix and suffix around it', () => {
    expect(findCalibrationCode(`]Q1${CALIBRATION_CODE}#`)).toMatchObject({ prefix: ']Q1', suffix: '#' });
  });
});

describe('diagnosis', () => {
  it('a US path: nothing to translate; terminator, framing and speed from the read', () => {
    const { diagnosis, translation } = calibrate(CALIBRATION_CODE, {
      terminator: 'cr',
      prefixKeys: [],
      suffixKeys: [],
      units: 71,
      durationMs: 140,
    });
    expect(translation).toBeNull();
    expect(diagnosis).toMatchObject({
      input_path: 'window',
      layout: 'us',
      differences: [],
      collisions: [],
      translation: 'not_needed',
      terminator: 'cr',
      prefix: [],
      suffix: [],
      characters: CALIBRATION_CODE.length,
      ms_per_character: 2,
      ms_per_code: 140,
      calibrated_at: '2026-11-24T14:00:00.000Z',
    });
  });

  it('German QWERTZ: y and z swapped, - typed as ß, _ typed as ?; learned, and tickets translate back exactly', () => {
    const { diagnosis, translation } = calibrate(mangleForLayout(CALIBRATION_CODE, 'de'));
    expect(diagnosis.layout).toBe('de');
    expect(diagnosis.translation).toBe('learned');
    expect(diagnosis.differences).toEqual(
      [
        { kind: 'swapped', a: 'Y', b: 'Z' },
        { kind: 'swapped', a: 'y', b: 'z' },
        { kind: 'typed_as', expected: '-', received: 'ß' },
        { kind: 'typed_as', expected: '_', received: '?' },
      ].filter((d) => !(d.kind === 'swapped' && d.a === 'Y')),
    );
    expect(translate(mangleForLayout(TICKET, 'de'), translation!)).toBe(TICKET);
  });

  it('French AZERTY: letters, digits and punctuation all move; learned, and tickets translate back exactly', () => {
    const { diagnosis, translation } = calibrate(mangleForLayout(CALIBRATION_CODE, 'fr'));
    expect(diagnosis).toMatchObject({ layout: 'fr', translation: 'learned', collisions: [] });
    expect(diagnosis.differences).toContainEqual({ kind: 'swapped', a: 'a', b: 'q' });
    expect(diagnosis.differences).toContainEqual({ kind: 'typed_as', expected: '1', received: '&' });
    expect(translate(mangleForLayout(TICKET, 'fr'), translation!)).toBe(TICKET);
  });

  it('a layout nobody listed is still learned from what arrived', () => {
    const rot = (c: string): string => (c >= 'a' && c <= 'z' ? String.fromCharCode(((c.charCodeAt(0) - 97 + 1) % 26) + 97) : c);
    const mangle = (text: string): string => [...text].map(rot).join('');
    const { diagnosis, translation } = calibrate(mangle(CALIBRATION_CODE));
    expect(diagnosis).toMatchObject({ layout: 'unknown', translation: 'learned' });
    expect(translate(mangle(TICKET), translation!)).toBe(TICKET);
  });

  it('characters that arrive as one cannot be told apart: no translation, and the diagnosis names them', () => {
    const collapse = (text: string): string => text.replace(/[-_]/g, '-');
    const { diagnosis, translation } = calibrate(collapse(CALIBRATION_CODE));
    expect(translation).toBeNull();
    expect(diagnosis.translation).toBe('impossible');
    expect(diagnosis.collisions).toEqual([{ received: '-', expected: ['-', '_'] }]);
  });

  it('a translation changes nothing else: a code that was never valid stays invalid', () => {
    const { translation } = calibrate(mangleForLayout(CALIBRATION_CODE, 'de'));
    const forged = TICKET.slice(0, -2) + 'AA';
    expect(translate(mangleForLayout(forged, 'de'), translation!)).toBe(forged);
  });
});
