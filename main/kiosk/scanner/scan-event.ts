/**
 * What the scanner decoders hand to the rest of the kiosk: one whole scanned
 * string, or a decode problem. Decoders never throw on device input; a bad
 * report becomes a DecodeProblem so the kiosk can show "scan again".
 *
 * Privacy: a scanned string may be a setup code carrying a single-use
 * enrollment token (docs/protocol.md "Setup payload"), so problem messages never quote
 * scanned data; they name byte counts and HID usage ids only.
 */

/**
 * Where a scan came from: a HID-POS scanned-data report or keyboard boot
 * reports. The same names as the kiosk's input paths (repeat-reads.ts
 * ScanOrigin), of which these are the two read over USB.
 */
export type ScanSource = 'hid-pos' | 'hid-keyboard';

export interface ScannedCode {
  kind: 'scan';
  source: ScanSource;
  /** The decoded content, without the scanner's CR/LF/Tab suffix. */
  text: string;
  /** AIM symbology identifier such as "]Q1" (QR Code), or null when the device sent none. */
  symbologyId: string | null;
  /** How the scan physically arrived, for the calibration diagnosis (docs/kiosk.md "Calibration"). */
  read?: ReadDetails;
  /** The device that read it, set by the scanner manager (lanes are mapped by device: docs/kiosk.md "Several scanners"). */
  device?: ScannerDevice;
}

/** A scanner as the kiosk tells it apart from another: ids, port path, serial number (ConnectedScanner has these and more). */
export interface ScannerDevice {
  vendorId: number;
  productId: number;
  path: string;
  serialNumber: string | null;
  /** Name and ids, for the screens and the log; never the serial number. */
  label: string;
}

// How a read arrived crosses to the page with the calibration diagnosis: the types are the bridge's.
export type { ReadDetails, ScanTerminator } from '../../../renderer/kiosk-bridge-types.js';
import type { ReadDetails } from '../../../renderer/kiosk-bridge-types.js';

export type DecodeProblemCode =
  /** A report whose length does not fit the expected layout. */
  | 'wrong_report_length'
  /** A HID-POS byte count larger than the report's data field. */
  | 'bad_byte_count'
  /** A continuation report carried another symbology: the previous scan lost its last report. */
  | 'symbology_changed'
  /** Partial data was discarded (reset, unplug, or no further report arrived in time). */
  | 'incomplete_scan'
  /** More data than any code the kiosk accepts: a stuck continuation flag or a runaway device. */
  | 'scan_too_long'
  /** The assembled bytes are not valid UTF-8. */
  | 'not_utf8'
  /** A key with no character in the US layout (or an Alt/GUI chord) between two characters of a scan, or first seen as framing. */
  | 'unmapped_key'
  /** NUL bytes inside a HID-POS scan's byte count: the report layout was misread, the scan is not delivered. */
  | 'padding_in_data'
  /** The device sends reports of a mode the kiosk cannot read (e.g. Zebra SNAPI). */
  | 'unreadable_mode';

export interface DecodeProblem {
  kind: 'problem';
  source: ScanSource;
  code: DecodeProblemCode;
  /** For logs and support; never contains scanned data. */
  message: string;
}

export type ScanEvent = ScannedCode | DecodeProblem;

export function decodeProblem(source: ScanSource, code: DecodeProblemCode, message: string): DecodeProblem {
  return { kind: 'problem', source, code, message };
}

/**
 * Longest scan the decoders assemble. A tkt1 code is a few hundred
 * characters; a QR Code holds at most 2,953 bytes (version 40-L), so 4 KiB
 * covers any real symbol and bounds memory if a continuation flag sticks.
 */
export const DEFAULT_MAX_SCAN_BYTES = 4096;
