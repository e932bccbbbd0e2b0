/**
 * Decoder for HID Point-of-Sale scanned-data input reports (usage page 0x8C),
 * in any of the layouts of hid-pos-layouts.ts.
 *
 * node-hid delivers each input report with its report ID as the first byte
 * (hidapi does so for devices with numbered reports), which is what `push`
 * expects. A scan longer than one report's data field (every tkt1 code)
 * arrives as several reports, each flagged "continued" but the last.
 *
 * The layout is the device's own (read from its report descriptor) when the
 * kiosk could read that; otherwise each scan's first report tells it
 * (`detectLayout`), and the scan's later reports are read the same way.
 *
 * What is delivered is the data only: the scanner's CR/LF/Tab suffix and any
 * control-character prefix or suffix (STX, ETX...) are framing, named in the
 * read details; a Newland scanner's AIM id sent inside the data becomes the
 * symbology id. A scan with NUL bytes inside its byte count (a misread
 * layout) is never delivered. Pure, no timers: `push` returns what a report
 * completed; the device manager calls `endOfInput` when no report followed in
 * time and `reset` on unplug.
 */
import { detectLayout, SCANNED_DATA_REPORT_ID, type HidPosLayout } from './hid-pos-layouts.js';
import { DEFAULT_MAX_SCAN_BYTES, decodeProblem, type DecodeProblem, type ScanEvent, type ScanTerminator } from './scan-event.js';
import { CONTROL_NAMES } from './us-keyboard-layout.js';

export const HID_POS_USAGE_PAGE = 0x8c;
/** Usage 0x8C:0x02 Bar Code Scanner, the application collection of a HID-POS scanner. */
export const HID_POS_BARCODE_SCANNER_USAGE = 0x02;

/** Zebra's SNAPI (Symbol Native API) sends its data in report 0x22: the scanner is not in HID-POS mode. */
const SNAPI_REPORT_ID = 0x22;

export interface HidPosDecoderOptions {
  maxScanBytes?: number;
  /** The device's layout from its report descriptor; without it, each scan's first report decides. */
  layout?: HidPosLayout | null;
  /** The device's USB vendor id: a hint for that first report (detectLayout). */
  vendorId?: number | null;
}

interface Assembly {
  layout: HidPosLayout;
  chunks: Uint8Array[];
  bytes: number;
  symbologyId: string | null;
  reports: number;
  firstAt: number;
  lastAt: number;
}

export class HidPosDecoder {
  private readonly maxScanBytes: number;
  private readonly fixedLayout: HidPosLayout | null;
  private readonly vendorId: number | null;
  private assembly: Assembly | null = null;
  /** After a problem mid-scan: drop reports until the one that ends the scan. */
  private discarding = false;
  private snapiReported = false;

  constructor(options: HidPosDecoderOptions = {}) {
    this.maxScanBytes = options.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES;
    this.fixedLayout = options.layout ?? null;
    this.vendorId = options.vendorId ?? null;
  }

  /** True while a scan is under way: reports arrived and the one ending the scan has not. */
  get isAssembling(): boolean {
    return this.assembly !== null || this.discarding;
  }

  /**
   * Feed one input report; `atMs` is when it arrived (any monotonic clock),
   * for the read details. Returns the events it completed: usually nothing
   * (more reports follow) or one scan; a problem and then a scan when a new
   * scan interrupts an incomplete one.
   */
  push(report: Uint8Array, atMs = 0): ScanEvent[] {
    const reportId = report[0];
    if (reportId === SNAPI_REPORT_ID && this.fixedLayout?.reportId !== SNAPI_REPORT_ID) return this.snapi();
    const expectedId = this.fixedLayout?.reportId ?? SCANNED_DATA_REPORT_ID;
    // Other report IDs on the scanner's interface (trigger, status, attribute
    // reports) are legitimate and not scan data: skip them, keep the state.
    if (report.length > 0 && expectedId !== 0 && reportId !== expectedId) return [];
    const layout = this.assembly?.layout ?? this.fixedLayout ?? detectLayout(report, this.vendorId);
    if (report.length < layout.reportLength) {
      return [
        this.fail(
          'wrong_report_length',
          `a scanned-data report of the layout "${layout.name}" is ${layout.reportLength} bytes, got ${report.length}`,
          this.assembly !== null,
        ),
      ];
    }
    const byteCount = report[layout.byteCountOffset] ?? 0;
    const continued = isContinued(layout, report, byteCount);
    if (byteCount > layout.dataCapacity) {
      return [
        this.fail(
          'bad_byte_count',
          `byte count ${byteCount} exceeds the ${layout.dataCapacity}-byte data field`,
          this.assembly !== null || continued,
        ),
      ];
    }
    if (this.discarding) {
      // The rest of a scan already reported as a problem: drop it through its last report.
      if (!continued) this.discarding = false;
      return [];
    }
    const symbologyId = layout.aimOffset === null ? null : readAimIdentifier(report.subarray(layout.aimOffset, layout.aimOffset + 3));

    const events: ScanEvent[] = [];
    const pending = this.assembly;
    if (pending && symbologyId !== null && pending.symbologyId !== null && symbologyId !== pending.symbologyId) {
      // The report that should have ended the previous scan was lost; that scan
      // is unusable, but this report may well start (or be) a good one.
      events.push(
        decodeProblem(
          'hid-pos',
          'symbology_changed',
          `a continuation report changed symbology from ${pending.symbologyId} to ${symbologyId}; the previous scan was incomplete`,
        ),
      );
      this.assembly = null;
      return [...events, ...this.push(report, atMs)];
    }
    if (!pending && byteCount === 0 && !continued) return events; // an empty report: nothing scanned

    const assembly: Assembly = pending ?? { layout, chunks: [], bytes: 0, symbologyId, reports: 0, firstAt: atMs, lastAt: atMs };
    this.assembly = assembly;
    assembly.symbologyId ??= symbologyId;
    assembly.chunks.push(report.slice(layout.dataOffset, layout.dataOffset + byteCount));
    assembly.bytes += byteCount;
    assembly.reports += 1;
    assembly.lastAt = atMs;
    if (assembly.bytes > this.maxScanBytes) {
      events.push(this.fail('scan_too_long', `a scan exceeded ${this.maxScanBytes} bytes`, continued));
      return events;
    }
    if (continued) return events;
    events.push(...this.finish('report_end'));
    return events;
  }

  /**
   * No report came for a while. A layout without a continued flag ends its
   * scan here (a pause); otherwise the last report was lost and the partial
   * scan is dropped with an `incomplete_scan` problem.
   */
  endOfInput(): ScanEvent[] {
    const assembly = this.assembly;
    this.discarding = false;
    if (!assembly) return [];
    if (assembly.layout.continued === null) return this.finish('pause');
    this.assembly = null;
    return [decodeProblem('hid-pos', 'incomplete_scan', `discarded ${assembly.bytes} bytes of a scan whose last report never arrived`)];
  }

  /**
   * Drop any half-assembled scan (the scanner was unplugged). Returns an
   * `incomplete_scan` problem when data was discarded.
   */
  reset(): DecodeProblem | null {
    const assembly = this.assembly;
    this.assembly = null;
    this.discarding = false;
    return assembly
      ? decodeProblem('hid-pos', 'incomplete_scan', `discarded ${assembly.bytes} bytes of a scan whose last report never arrived`)
      : null;
  }

  private finish(ended: 'report_end' | 'pause'): ScanEvent[] {
    const assembly = this.assembly;
    this.assembly = null;
    if (!assembly) return [];
    const bytes = concat(assembly.chunks, assembly.bytes);
    if (bytes.includes(0)) {
      return [
        decodeProblem(
          'hid-pos',
          'padding_in_data',
          `a ${bytes.length}-byte scan read as "${assembly.layout.name}" holds NUL padding: the layout was misread; the scan was dropped`,
        ),
      ];
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return [decodeProblem('hid-pos', 'not_utf8', `a ${bytes.length}-byte scan is not valid UTF-8`)];
    }
    const framed = splitFraming(text);
    let content = framed.content;
    let symbologyId = assembly.symbologyId;
    if (assembly.layout.aimOffset === null) {
      // A scanner with no AIM field can be set to send the AIM id as a data prefix.
      const aim = /^\][\x21-\x7e]{2}/.exec(content)?.[0];
      if (aim && content.length > 3) {
        symbologyId = aim;
        content = content.slice(3);
      }
    }
    if (content === '') return []; // nothing but framing
    const terminator: ScanTerminator = framed.terminator ?? ended;
    return [
      {
        kind: 'scan',
        source: 'hid-pos',
        text: content,
        symbologyId,
        read: {
          terminator,
          prefixKeys: framed.prefix,
          suffixKeys: framed.suffix,
          units: assembly.reports,
          durationMs: Math.max(0, assembly.lastAt - assembly.firstAt),
          layout: assembly.layout.name,
        },
      },
    ];
  }

  private snapi(): ScanEvent[] {
    if (this.snapiReported) return [];
    this.snapiReported = true;
    return [decodeProblem('hid-pos', 'unreadable_mode', 'the scanner sends SNAPI reports (report 0x22), not HID-POS scanned data')];
  }

  /**
   * Report a problem and drop the partial scan. With `discardRest`, the
   * reports still to come for this scan are dropped too: the report layout
   * has no "first report" marker, so its tail would otherwise pass for a
   * whole scan.
   */
  private fail(code: DecodeProblem['code'], message: string, discardRest: boolean): DecodeProblem {
    this.assembly = null;
    this.discarding = discardRest;
    return decodeProblem('hid-pos', code, message);
  }
}

/** Whether more reports of this scan follow: the flag, or for a layout without one, a full report. */
function isContinued(layout: HidPosLayout, report: Uint8Array, byteCount: number): boolean {
  if (layout.continued === null) return byteCount === layout.dataCapacity;
  return ((report[layout.continued.offset] ?? 0) & layout.continued.mask) !== 0;
}

/** How many C0 control characters (U+0000 to U+001F) run from `start` in direction `step`. */
function countC0(text: string, start: number, step: 1 | -1): number {
  let count = 0;
  for (let i = start; i >= 0 && i < text.length && text.charCodeAt(i) < 0x20; i += step) count++;
  return count;
}

/**
 * The scanner's framing around the data: control characters before it
 * (prefix), and after it the CR / LF / CR LF / Tab terminator and any other
 * control characters (suffix), e.g. STX data ETX CR LF.
 */
function splitFraming(text: string): { content: string; prefix: string[]; suffix: string[]; terminator: ScanTerminator | null } {
  const leading = text.slice(0, countC0(text, 0, 1));
  const rest = text.slice(leading.length);
  const trailing = rest.slice(rest.length - countC0(rest, rest.length - 1, -1));
  const content = rest.slice(0, rest.length - trailing.length);
  const terminatorMatch = /(\r\n|\r|\n|\t)$/.exec(trailing);
  const terminatorText = terminatorMatch?.[0] ?? '';
  const terminator: ScanTerminator | null =
    terminatorText === '\r\n'
      ? 'crlf'
      : terminatorText === '\r'
        ? 'cr'
        : terminatorText === '\n'
          ? 'lf'
          : terminatorText === '\t'
            ? 'tab'
            : null;
  const name = (character: string): string => CONTROL_NAMES[character.charCodeAt(0)] ?? 'control';
  return {
    content,
    prefix: [...leading].map(name),
    suffix: [...trailing.slice(0, trailing.length - terminatorText.length)].map(name),
    terminator,
  };
}

/** "]Q1"-style AIM identifier (ISO/IEC 15424: ']', code character, modifier), or null. */
function readAimIdentifier(bytes: Uint8Array): string | null {
  if (bytes[0] !== 0x5d) return null;
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
