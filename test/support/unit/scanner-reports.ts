/**
 * The recorded report sequences in test/support/unit/scanner-fixtures/ (see
 * make-fixtures.mjs). Imported as modules, not read from disk, so the unit
 * tests that replay them touch no file.
 */
import hidPosReports from './scanner-fixtures/hid-pos-reports.json' with { type: 'json' };
import keyboardReports from './scanner-fixtures/keyboard-reports.json' with { type: 'json' };

interface FixtureFile {
  codes: Record<string, string>;
  descriptors?: Record<string, string>;
  cases: Record<string, Record<string, string[]>>;
}

export const posFixtures: FixtureFile = hidPosReports;
export const keyboardFixtures: FixtureFile = keyboardReports;

export function reports(file: FixtureFile, caseName: string, field = 'reports'): Uint8Array[] {
  const hexReports = file.cases[caseName]?.[field];
  if (!hexReports) throw new Error(`no fixture ${caseName}.${field}`);
  return hexReports.map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));
}

export function code(file: FixtureFile, name: string): string {
  const value = file.codes[name];
  if (value === undefined) throw new Error(`no fixture code ${name}`);
  return value;
}

/** Feeds every report to a decoder and collects everything it emitted, in order. */
export function replay<E>(decoder: { push(report: Uint8Array): E[] }, reportList: Uint8Array[]): E[] {
  return reportList.flatMap((report) => decoder.push(report));
}

/** A report descriptor from the HID-POS fixtures. */
export function descriptor(name: string): Uint8Array {
  const hex = posFixtures.descriptors?.[name];
  if (!hex) throw new Error(`no fixture descriptor ${name}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}
