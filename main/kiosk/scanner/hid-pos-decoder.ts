/**
 * Decoder for HID Point-of-Sale scanned-data input reports (usage page 0x8C).
 *
 * Source: USB-IF "HID Point of Sale Usage Tables" 1.02, section 3 (Bar Code
 * Scanner page 0x8C) and 3.2 (Report Usages), as laid out by the report
 * descriptors of HID-POS scanners (Honeywell, Datalogic, Access-IS and others
 * document the same 64-byte input report in their "HID POS" appendix):
 *
 *   byte  0      Report ID 0x02 for the Scanned Data Report (usage 0x8C:0x12)
 *   byte  1      Byte Count (Generic Desktop 0x01:0x3B): how many of the
 *                Decoded Data bytes below are valid in this report (0..56)
 *   bytes 2..4   Symbology Identifier 1, 2, 3 (0x8C:0xFB..0xFD): the AIM
 *                identifier, e.g. "]Q1" for a QR Code; zeros when disabled
 *   bytes 5..60  Decoded Data (0x8C:0xFE), 56 bytes; bytes past the count
 *                are padding and ignored
 *   bytes 61..62 vendor-defined (e.g. Honeywell's own code id), ignored
 *   byte  63     bit 0: Decode Data Continued (0x8C:0xFF): 1 = more reports
 *                of the same scan follow; 0 = this report ends the scan
 *
 * node-hid delivers each input report with its report ID as the first byte
 * (hidapi does so for devices with numbered reports), which is what `push`
 * expects. A scan longer than 56 bytes (every tkt1 code) arrives as several
 * reports with the continued bit set on all but the last.
 *
 * The decoder is pure and has no timers: `push` returns what a report
 * completed, and `reset` drops a half-assembled scan (the device manager calls
 * it on unplug or when a continuation does not arrive in time).
 */
import {
  DEFAULT_MAX_SCAN_BYTES,
  decodeProblem,
  stripScannerSuffix,
  type DecodeProblem,
  type ScanEvent,
} from './scan-event.js';

export const HID_POS_USAGE_PAGE = 0x8c;
/** Usage 0x8C:0x02 Bar Code Scanner, the application collection of a HID-POS scanner. */
export const HID_POS_BARCODE_SCANNER_USAGE = 0x02;
export const SCANNED_DATA_REPORT_ID = 0x02;

export const POS_REPORT_LENGTH = 64;
const BYTE_COUNT_OFFSET = 1;
const SYMBOLOGY_OFFSET = 2;
const SYMBOLOGY_LENGTH = 3;
const DATA_OFFSET = 5;
export const POS_DATA_CAPACITY = 56;
const CONTINUED_OFFSET = 63;
const CONTINUED_BIT = 0x01;
const AIM_FLAG_CHARACTER = 0x5d; // ']' starts every AIM symbology identifier (ISO/IEC 15424)

export interface HidPosDecoderOptions {
  maxScanBytes?: number;
}

export class HidPosDecoder {
  private readonly maxScanBytes: number;
  private chunks: Uint8Array[] = [];
  private pendingBytes = 0;
  private pendingSymbologyId: string | null = null;
  private assembling = false;
  /** After a problem mid-scan: drop reports until the one that ends the scan. */
  private discarding = false;

  constructor(options: HidPosDecoderOptions = {}) {
    this.maxScanBytes = options.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES;
  }

  /** True while a scan is under way: reports arrived and the one ending the scan has not. */
  get isAssembling(): boolean {
    return this.assembling || this.discarding;
  }

  /**
   * Feed one input report. Returns the events it completed: usually nothing
   * (more reports follow) or one scan; a problem and then a scan when a new
   * scan interrupts an incomplete one.
   */
  push(report: Uint8Array): ScanEvent[] {
    // Other report IDs on the scanner's interface (trigger, status, attribute
    // reports) are legitimate and not scan data: skip them, keep the state.
    if (report.length > 0 && report[0] !== SCANNED_DATA_REPORT_ID) return [];
    if (report.length < POS_REPORT_LENGTH) {
      return [this.fail('wrong_report_length', `a scanned-data report is ${POS_REPORT_LENGTH} bytes, got ${report.length}`, this.assembling)];
    }
    const byteCount = report[BYTE_COUNT_OFFSET] ?? 0;
    const continued = ((report[CONTINUED_OFFSET] ?? 0) & CONTINUED_BIT) !== 0;
    if (byteCount > POS_DATA_CAPACITY) {
      return [this.fail('bad_byte_count', `byte count ${byteCount} exceeds the ${POS_DATA_CAPACITY}-byte data field`, this.assembling || continued)];
    }
    if (this.discarding) {
      // The rest of a scan already reported as a problem: drop it through its last report.
      if (!continued) this.discarding = false;
      return [];
    }
    const symbologyId = readAimIdentifier(report.subarray(SYMBOLOGY_OFFSET, SYMBOLOGY_OFFSET + SYMBOLOGY_LENGTH));

    const events: ScanEvent[] = [];
    if (this.assembling && symbologyId !== null && this.pendingSymbologyId !== null && symbologyId !== this.pendingSymbologyId) {
      // The report that should have ended the previous scan was lost; that scan
      // is unusable, but this report may well start (or be) a good one.
      events.push(
        decodeProblem('hid-pos', 'symbology_changed', `a continuation report changed symbology from ${this.pendingSymbologyId} to ${symbologyId}; the previous scan was incomplete`),
      );
      this.clear();
    }

    if (!this.assembling && byteCount === 0 && !continued) return events; // an empty report: nothing scanned

    this.assembling = true;
    this.pendingSymbologyId ??= symbologyId;
    this.chunks.push(report.slice(DATA_OFFSET, DATA_OFFSET + byteCount));
    this.pendingBytes += byteCount;
    if (this.pendingBytes > this.maxScanBytes) {
      events.push(this.fail('scan_too_long', `a scan exceeded ${this.maxScanBytes} bytes`, continued));
      return events;
    }
    if (continued) return events;

    const finished = this.finish();
    if (finished) events.push(finished);
    return events;
  }

  /**
   * Drop any half-assembled scan. Returns an `incomplete_scan` problem when
   * data was discarded, so the caller can tell the operator to scan again.
   */
  reset(): DecodeProblem | null {
    const discarded = this.assembling;
    const bytes = this.pendingBytes;
    this.clear();
    this.discarding = false;
    return discarded ? decodeProblem('hid-pos', 'incomplete_scan', `discarded ${bytes} bytes of a scan whose last report never arrived`) : null;
  }

  /** The assembled scan, or null when it held nothing but the scanner's suffix. */
  private finish(): ScanEvent | null {
    const bytes = concat(this.chunks, this.pendingBytes);
    const symbologyId = this.pendingSymbologyId;
    this.clear();
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return decodeProblem('hid-pos', 'not_utf8', `a ${bytes.length}-byte scan is not valid UTF-8`);
    }
    const content = stripScannerSuffix(text);
    return content === '' ? null : { kind: 'scan', source: 'hid-pos', text: content, symbologyId };
  }

  /**
   * Report a problem and drop the partial scan. With `discardRest`, the
   * reports still to come for this scan are dropped too: the report layout
   * has no "first report" marker, so its tail would otherwise pass for a
   * whole scan.
   */
  private fail(code: DecodeProblem['code'], message: string, discardRest: boolean): DecodeProblem {
    this.clear();
    this.discarding = discardRest;
    return decodeProblem('hid-pos', code, message);
  }

  private clear(): void {
    this.chunks = [];
    this.pendingBytes = 0;
    this.pendingSymbologyId = null;
    this.assembling = false;
  }
}

/** "]Q1"-style AIM identifier (ISO/IEC 15424: ']', code character, modifier), or null. */
function readAimIdentifier(bytes: Uint8Array): string | null {
  if (bytes[0] !== AIM_FLAG_CHARACTER) return null;
  for (const byte of bytes) {
    if (byte < 0x21 || byte > 0x7e) return null;
  }
  return String.fromCharCode(...bytes);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
