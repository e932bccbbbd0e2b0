/**
 * A small HID report descriptor parser (HID 1.11 section 6.2.2 "Report
 * Descriptor"): where each input field of each report sits, and which usages
 * it carries. Enough to find a HID-POS scanner's scanned-data layout from the
 * descriptor the device itself sends (hid-pos-layouts.ts), instead of
 * guessing it. Pure; malformed descriptors give what could be read, never a throw.
 */

export interface InputField {
  /** Bit position from the start of the report's data (after the report ID byte, if any). */
  bitOffset: number;
  bitSize: number;
  count: number;
  /** Usage of each element, as (page << 16) | id; the last one repeats when fewer usages than elements were declared. */
  usages: number[];
}

export interface InputReport {
  /** 0 when the device does not number its reports. */
  reportId: number;
  /** Length in bytes as node-hid delivers it: the report ID byte (if numbered) plus the data. */
  byteLength: number;
  fields: InputField[];
}

const MAIN = 0;
const GLOBAL = 1;
const LOCAL = 2;
const TAG_INPUT = 0x8;
const TAG_USAGE_PAGE = 0x0;
const TAG_REPORT_SIZE = 0x7;
const TAG_REPORT_ID = 0x8;
const TAG_REPORT_COUNT = 0x9;
const TAG_PUSH = 0xa;
const TAG_POP = 0xb;
const TAG_USAGE = 0x0;
const TAG_USAGE_MINIMUM = 0x1;
const TAG_USAGE_MAXIMUM = 0x2;
const LONG_ITEM = 0xfe;
/** A usage range longer than this is not a real descriptor's; stop expanding it. */
const MAX_USAGE_RANGE = 1024;

interface Globals {
  usagePage: number;
  reportSize: number;
  reportCount: number;
  reportId: number;
}

export function parseInputReports(descriptor: Uint8Array): InputReport[] {
  const reports = new Map<number, { bits: number; fields: InputField[] }>();
  let globals: Globals = { usagePage: 0, reportSize: 0, reportCount: 0, reportId: 0 };
  const stack: Globals[] = [];
  let usages: number[] = [];
  let usageMinimum: number | null = null;

  let index = 0;
  while (index < descriptor.length) {
    const prefix = descriptor[index] ?? 0;
    if (prefix === LONG_ITEM) {
      index += 3 + (descriptor[index + 1] ?? 0);
      continue;
    }
    const size = [0, 1, 2, 4][prefix & 0x03] ?? 0;
    const type = (prefix >> 2) & 0x03;
    const tag = prefix >> 4;
    if (index + 1 + size > descriptor.length) break; // truncated item
    let value = 0;
    for (let byte = 0; byte < size; byte++) value += (descriptor[index + 1 + byte] ?? 0) * 2 ** (8 * byte);
    index += 1 + size;

    const fullUsage = (id: number): number => (size === 4 ? value : ((globals.usagePage << 16) | id) >>> 0);
    if (type === GLOBAL) {
      if (tag === TAG_USAGE_PAGE) globals = { ...globals, usagePage: value };
      else if (tag === TAG_REPORT_SIZE) globals = { ...globals, reportSize: value };
      else if (tag === TAG_REPORT_COUNT) globals = { ...globals, reportCount: value };
      else if (tag === TAG_REPORT_ID) globals = { ...globals, reportId: value };
      else if (tag === TAG_PUSH) stack.push(globals);
      else if (tag === TAG_POP) globals = stack.pop() ?? globals;
    } else if (type === LOCAL) {
      if (tag === TAG_USAGE) usages.push(fullUsage(value));
      else if (tag === TAG_USAGE_MINIMUM) usageMinimum = fullUsage(value);
      else if (tag === TAG_USAGE_MAXIMUM && usageMinimum !== null) {
        const maximum = fullUsage(value);
        for (let usage = usageMinimum; usage <= maximum && usage - usageMinimum < MAX_USAGE_RANGE; usage++) usages.push(usage);
        usageMinimum = null;
      }
    } else if (type === MAIN) {
      if (tag === TAG_INPUT) {
        const report = reports.get(globals.reportId) ?? { bits: 0, fields: [] };
        report.fields.push({ bitOffset: report.bits, bitSize: globals.reportSize, count: globals.reportCount, usages });
        report.bits += globals.reportSize * globals.reportCount;
        reports.set(globals.reportId, report);
      }
      // Every main item (Input, Output, Feature, Collection, End Collection) ends the local state.
      usages = [];
      usageMinimum = null;
    }
  }
  return [...reports].map(([reportId, report]) => ({
    reportId,
    byteLength: Math.ceil(report.bits / 8) + (reportId === 0 ? 0 : 1),
    fields: report.fields,
  }));
}

/** The usage of element `element` of a field: the declared one, or the last declared. */
export function usageOf(field: InputField, element: number): number | undefined {
  return field.usages[Math.min(element, field.usages.length - 1)];
}

/** Byte position (in node-hid's report, report ID included) and bit of the first element of `usage`, if an input report has it. */
export function findUsage(report: InputReport, usage: number): { byte: number; bit: number; count: number; bitSize: number } | null {
  const idBytes = report.reportId === 0 ? 0 : 1;
  for (const field of report.fields) {
    for (let element = 0; element < field.count; element++) {
      if (usageOf(field, element) !== usage) continue;
      const bitPosition = field.bitOffset + element * field.bitSize;
      // The elements of one usage that follow each other in this field.
      let count = 1;
      while (element + count < field.count && usageOf(field, element + count) === usage) count++;
      return { byte: idBytes + Math.floor(bitPosition / 8), bit: bitPosition % 8, count, bitSize: field.bitSize };
    }
  }
  return null;
}
