/** Loads the recorded report sequences in test/unit/scanner-fixtures/ (see make-fixtures.mjs). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface FixtureFile {
  codes: Record<string, string>;
  descriptors?: Record<string, string>;
  cases: Record<string, Record<string, string[]>>;
}

function load(name: string): FixtureFile {
  const url = new URL(`../scanner-fixtures/${name}`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as FixtureFile;
}

export const posFixtures = load('hid-pos-reports.json');
export const keyboardFixtures = load('keyboard-reports.json');

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
