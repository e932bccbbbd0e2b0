/**
 * Text as a HID-POS scanner sends it: 64-byte input reports (report id 2) of up to 56 data bytes each,
 * in two vendors' layouts (main/kiosk/scanner/hid-pos-layouts.ts; docs/kiosk.md "Scanners").
 */

/** The standard layout (Honeywell): count at byte 1, AIM id ]Q1 in 2–4, 56 data bytes from 5, continued flag at 63. */
export function standardHidPosReports(text: string): Uint8Array[] {
  return hidPosReports(text, (report, chunk) => {
    report.set([0x02, chunk.length, 0x5d, 0x51, 0x31]);
    report.set(chunk, 5);
  });
}

/** Newland's layout: count at byte 1, 56 data bytes from byte 2, symbology id at 62, continued at 63. */
export function newlandHidPosReports(text: string): Uint8Array[] {
  return hidPosReports(text, (report, chunk) => {
    report.set([0x02, chunk.length]);
    report.set(chunk, 2);
    report[62] = 0x51;
  });
}

function hidPosReports(text: string, fill: (report: Uint8Array, chunk: Uint8Array) => void): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const reports: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += 56) {
    const report = new Uint8Array(64);
    fill(report, bytes.subarray(offset, offset + 56));
    report[63] = offset + 56 < bytes.length ? 1 : 0;
    reports.push(report);
  }
  return reports;
}
