/**
 * The scanned-data report layouts HID-POS scanners send (docs/kiosk.md
 * "Scanner compatibility"). All put report ID 0x02 first and a byte count in
 * byte 1; they differ in where the symbology id and the data sit, and in how
 * a scan longer than one report says "more follows":
 *
 *   standard   Honeywell, Datalogic, Access-IS and the USB-IF usage tables
 *              (HID Point of Sale Usage Tables 1.02, page 0x8C): AIM id in
 *              bytes 2-4, 56 data bytes from byte 5, vendor code id at 61,
 *              byte 63 bit 0 "Decode Data Continued".
 *   vendor byte before the AIM id   Zebra/Symbol and some Datalogic models:
 *              a vendor byte at 2, AIM id in 3-5, data from byte 6.
 *   Newland    no AIM field: 56 data bytes from byte 2, Newland's own
 *              symbology id at byte 62, continued flag at byte 63; firmware
 *              that declares a 62-byte report sends 63 bytes with no flag,
 *              so a full report means "more may follow" and a short one or a
 *              pause ends the scan.
 *
 * The device's own report descriptor decides when the kiosk can read it
 * (`layoutFromDescriptor`); otherwise the first report of each scan does
 * (`detectLayout`), which the fixtures in test/support/unit/scanner-fixtures/ cover.
 */
import { findUsage, parseInputReports } from './hid-report-descriptor.js';

export interface HidPosLayout {
  /** For people: the read details and logs name the layout a scan was read with. */
  name: string;
  reportId: number;
  /** Bytes per report as node-hid delivers it, report ID included. */
  reportLength: number;
  byteCountOffset: number;
  /** Where the 3-byte AIM symbology id sits, or null when the layout has none. */
  aimOffset: number | null;
  dataOffset: number;
  dataCapacity: number;
  /** The "more reports follow" flag, or null: then a full report means more may follow. */
  continued: { offset: number; mask: number } | null;
}

export const SCANNED_DATA_REPORT_ID = 0x02;

export const STANDARD_LAYOUT: HidPosLayout = {
  name: 'HID-POS standard (AIM id in bytes 2-4, data from byte 5)',
  reportId: SCANNED_DATA_REPORT_ID,
  reportLength: 64,
  byteCountOffset: 1,
  aimOffset: 2,
  dataOffset: 5,
  dataCapacity: 56,
  continued: { offset: 63, mask: 0x01 },
};

export const VENDOR_BYTE_LAYOUT: HidPosLayout = {
  ...STANDARD_LAYOUT,
  name: 'HID-POS with a vendor byte before the AIM id (AIM id in bytes 3-5, data from byte 6)',
  aimOffset: 3,
  dataOffset: 6,
  dataCapacity: 57,
};

export const NEWLAND_LAYOUT: HidPosLayout = {
  ...STANDARD_LAYOUT,
  name: 'Newland HID-POS (data from byte 2, symbology id at byte 62)',
  aimOffset: null,
  dataOffset: 2,
};

export const NEWLAND_SHORT_LAYOUT: HidPosLayout = {
  ...NEWLAND_LAYOUT,
  name: 'Newland HID-POS, 63-byte reports (data from byte 2, no continued flag)',
  reportLength: 63,
  continued: null,
};

export const KNOWN_LAYOUTS: readonly HidPosLayout[] = [STANDARD_LAYOUT, VENDOR_BYTE_LAYOUT, NEWLAND_LAYOUT, NEWLAND_SHORT_LAYOUT];

const AIM_FLAG = 0x5d; // ']' starts every AIM symbology identifier (ISO/IEC 15424)
const NEWLAND_VENDOR_ID = 0x1eab;

/** Whether this report's data, read with `layout`'s offsets and its byte count, holds a NUL byte. */
function holdsNul(report: Uint8Array, layout: HidPosLayout): boolean {
  const count = Math.min(report[layout.byteCountOffset] ?? 0, layout.dataCapacity);
  return report.subarray(layout.dataOffset, layout.dataOffset + count).includes(0);
}

/**
 * The layout of a scan's first report, when the descriptor was not available.
 * The AIM flag ']' says where the AIM id is; zeros where an AIM id would be
 * say it is turned off; data straight from byte 2 is Newland's. A Newland
 * device (by its USB vendor id) is always read as Newland.
 */
export function detectLayout(report: Uint8Array, vendorId: number | null = null): HidPosLayout {
  if (report.length === NEWLAND_SHORT_LAYOUT.reportLength) return NEWLAND_SHORT_LAYOUT;
  if (vendorId === NEWLAND_VENDOR_ID) return NEWLAND_LAYOUT;
  const at = (index: number): number => report[index] ?? 0;
  if (at(2) === AIM_FLAG) {
    // A Newland scanner can send the AIM id as the first data bytes. Its byte count then
    // covers bytes 2.., and the same count read from byte 5 runs into the zero padding.
    return holdsNul(report, STANDARD_LAYOUT) && !holdsNul(report, NEWLAND_LAYOUT) ? NEWLAND_LAYOUT : STANDARD_LAYOUT;
  }
  if (at(2) !== 0 && at(3) === AIM_FLAG) return VENDOR_BYTE_LAYOUT;
  if (at(2) === 0 && at(3) === 0 && at(4) === 0) return STANDARD_LAYOUT; // AIM id turned off
  if (at(2) !== 0 && at(3) === 0 && at(4) === 0 && at(5) === 0) return VENDOR_BYTE_LAYOUT; // vendor byte, AIM id off
  return NEWLAND_LAYOUT;
}

const PAGE_BARCODE_SCANNER = 0x8c;
const PAGE_GENERIC_DESKTOP = 0x01;
const USAGE_SYMBOLOGY_ID_1 = (PAGE_BARCODE_SCANNER << 16) | 0xfb;
const USAGE_DECODED_DATA = (PAGE_BARCODE_SCANNER << 16) | 0xfe;
const USAGE_DECODE_DATA_CONTINUED = (PAGE_BARCODE_SCANNER << 16) | 0xff;
const USAGE_BYTE_COUNT = (PAGE_GENERIC_DESKTOP << 16) | 0x3b;

/**
 * The scanned-data layout the device declares: the input report holding
 * Decoded Data (0x8C:0xFE) with a byte count (0x01:0x3B). Null when the
 * descriptor has no such report (then the device is not a HID-POS scanner in
 * a mode the kiosk reads, or the descriptor could not be parsed).
 */
export function layoutFromDescriptor(descriptor: Uint8Array): HidPosLayout | null {
  for (const report of parseInputReports(descriptor)) {
    const data = findUsage(report, USAGE_DECODED_DATA);
    const byteCount = findUsage(report, USAGE_BYTE_COUNT);
    if (!data || !byteCount || data.bitSize !== 8 || data.bit !== 0 || byteCount.bitSize !== 8 || byteCount.bit !== 0) continue;
    const aim = findUsage(report, USAGE_SYMBOLOGY_ID_1);
    const continued = findUsage(report, USAGE_DECODE_DATA_CONTINUED);
    const layout: HidPosLayout = {
      name: '',
      reportId: report.reportId,
      reportLength: report.byteLength,
      byteCountOffset: byteCount.byte,
      // The AIM id is three 8-bit symbology id usages (0xFB..0xFD) in a row.
      aimOffset: aim && aim.bitSize === 8 && aim.bit === 0 ? aim.byte : null,
      dataOffset: data.byte,
      dataCapacity: data.count,
      continued: continued ? { offset: continued.byte, mask: 1 << continued.bit } : null,
    };
    layout.name = `from the device's report descriptor (report ${layout.reportId}, ${layout.reportLength} bytes, ${layout.dataCapacity} data bytes from byte ${layout.dataOffset})`;
    return layout;
  }
  return null;
}
