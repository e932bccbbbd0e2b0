import { describe, expect, it } from 'vitest';
import { HidPosDecoder } from '../../../main/kiosk/scanner/hid-pos-decoder.js';
import {
  layoutFromDescriptor,
  NEWLAND_LAYOUT,
  NEWLAND_SHORT_LAYOUT,
  STANDARD_LAYOUT,
  VENDOR_BYTE_LAYOUT,
} from '../../../main/kiosk/scanner/hid-pos-layouts.js';
import type { ScanEvent } from '../../../main/kiosk/scanner/scan-event.js';
import { decodeSetupCode, decodeTicketCode } from '../../../protocol/index.js';
import { code, descriptor, posFixtures, replay, reports } from '../../support/unit/scanner-reports.js';

const ticket = code(posFixtures, 'ticket');
const setup = code(posFixtures, 'setup');
const longTicket = code(posFixtures, 'longTicket');
const standard = STANDARD_LAYOUT.name;
/** A scan as the decoder delivers it, read details included. */
function posScan(
  text: string,
  symbologyId: string | null,
  reportsRead: number,
  layout = standard,
  terminator: 'report_end' | 'crlf' | 'pause' = 'report_end',
): ScanEvent {
  return {
    kind: 'scan',
    source: 'hid-pos',
    text,
    symbologyId,
    read: { terminator, prefixKeys: [], suffixKeys: [], units: reportsRead, durationMs: 0, layout },
  };
}
const ean13Scan = posScan('4006381333931', ']E0', 1);

describe('HidPosDecoder on recorded scanned-data reports', () => {
  it('assembles a long tkt1 code from its continuation reports, byte for byte', () => {
    const decoder = new HidPosDecoder();
    const ticketReports = reports(posFixtures, 'ticket');
    expect(ticketReports.length).toBeGreaterThan(5);

    const beforeLast = ticketReports.slice(0, -1).flatMap((report) => decoder.push(report));
    expect(beforeLast).toEqual([]);
    expect(decoder.isAssembling).toBe(true);

    const last = decoder.push(ticketReports.at(-1)!);
    expect(last).toEqual([posScan(ticket, ']Q1', ticketReports.length)]);
    expect(decoder.isAssembling).toBe(false);
    // The assembled string is a valid ticket code for the protocol layer.
    expect(decodeTicketCode(ticket).payload.tid).toBe('01JAZ8K6Q3M9X2V7T5R4N1P0WB');
  });

  it('strips the CR LF suffix a scanner adds and keeps the tsetup1 code intact', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'setupWithCrLfSuffix'));
    expect(events).toEqual([posScan(setup, ']Q1', reports(posFixtures, 'setupWithCrLfSuffix').length, standard, 'crlf')]);
    expect(decodeSetupCode(setup).gate_id).toBe('north');
  });

  it('decodes a single-report scan and reads its AIM symbology identifier', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'ean13'))).toEqual([ean13Scan]);
  });

  it('skips reports with another report ID without breaking the scan in progress', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'triggerReportBetweenContinuations'));
    expect(events).toEqual([posScan(ticket, ']Q1', reports(posFixtures, 'ticket').length)]);
  });

  it('joins bytes before UTF-8 decoding, so a character split across reports survives', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'utf8StraddlingReports'));
    expect(events).toEqual([posScan(code(posFixtures, 'straddling'), ']Q1', 2)]);
  });

  it('ignores an empty report (byte count 0, not continued)', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'emptyReport'))).toEqual([]);
  });
});

describe('HidPosDecoder on every layout real scanners send (a 490-character ticket over many reports)', () => {
  it.each([
    ['standard (Honeywell, Datalogic, Access-IS)', 'longTicketStandard', STANDARD_LAYOUT.name, ']Q1'],
    ['Newland, 64-byte reports with the continued flag', 'longTicketNewland', NEWLAND_LAYOUT.name, null],
    ['a vendor byte before the AIM id (Zebra, Datalogic)', 'longTicketVendorByte', VENDOR_BYTE_LAYOUT.name, ']Q1'],
  ] as const)('%s: byte for byte, no stray character, the layout named', (_label, fixture, layout, symbologyId) => {
    const reportList = reports(posFixtures, fixture);
    expect(reportList.length).toBeGreaterThanOrEqual(9);
    const decoder = new HidPosDecoder();
    // Arrival times, 2 ms apart, become the read's duration.
    const events = reportList.flatMap((report, index) => decoder.push(report, 1000 + index * 2));
    expect(longTicket).toHaveLength(490);
    expect(events).toEqual([
      {
        kind: 'scan',
        source: 'hid-pos',
        text: longTicket,
        symbologyId,
        read: {
          terminator: 'report_end',
          prefixKeys: [],
          suffixKeys: [],
          units: reportList.length,
          durationMs: (reportList.length - 1) * 2,
          layout,
        },
      },
    ]);
    expect(decodeTicketCode(longTicket).payload.tt).toBe('Weekend pass');
  });

  it('Newland 63-byte reports have no continued flag: a short report ends the scan', () => {
    const reportList = reports(posFixtures, 'longTicketNewland63');
    expect(reportList.every((report) => report.length === 63)).toBe(true);
    const decoder = new HidPosDecoder();
    const events = replay(decoder, reportList);
    expect(events).toEqual([posScan(longTicket, null, reportList.length, NEWLAND_SHORT_LAYOUT.name)]);
  });

  it('Newland 63-byte: a scan that fills its last report exactly ends at the pause', () => {
    const decoder = new HidPosDecoder();
    expect(replay(decoder, reports(posFixtures, 'newland63ExactlyOneFullReport'))).toEqual([]);
    expect(decoder.isAssembling).toBe(true);
    expect(decoder.endOfInput()).toEqual([posScan('x'.repeat(56), null, 1, NEWLAND_SHORT_LAYOUT.name, 'pause')]);
    expect(decoder.isAssembling).toBe(false);
  });

  it('Newland sending the AIM id inside the data: it becomes the symbology id, not part of the ticket', () => {
    const reportList = reports(posFixtures, 'newlandAimPrefixInData');
    expect(replay(new HidPosDecoder(), reportList)).toEqual([posScan(ticket, ']Q1', reportList.length, NEWLAND_LAYOUT.name)]);
  });

  it('a vendor byte with the AIM id turned off', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'vendorByteAimOff'))).toEqual([
      posScan('GATE-NORTH-07', null, 1, VENDOR_BYTE_LAYOUT.name),
    ]);
  });

  it("the scanner's STX prefix and ETX CR LF suffix are framing, named in the read details", () => {
    const reportList = reports(posFixtures, 'framedStxEtxCrLf');
    const [event] = replay(new HidPosDecoder(), reportList);
    expect(event).toEqual({
      kind: 'scan',
      source: 'hid-pos',
      text: ticket,
      symbologyId: ']Q1',
      read: { terminator: 'crlf', prefixKeys: ['STX'], suffixKeys: ['ETX'], units: reportList.length, durationMs: 0, layout: standard },
    });
  });
});

describe("HID-POS layouts from the device's report descriptor", () => {
  it('reads the standard layout from a standard descriptor', () => {
    const layout = layoutFromDescriptor(descriptor('standard'));
    expect(layout).toMatchObject({
      reportId: 2,
      reportLength: 64,
      byteCountOffset: 1,
      aimOffset: 2,
      dataOffset: 5,
      dataCapacity: 56,
      continued: { offset: 63, mask: 1 },
    });
  });

  it("reads Newland's layout (no AIM field) and skips its output report", () => {
    const layout = layoutFromDescriptor(descriptor('newland'));
    expect(layout).toMatchObject({
      reportId: 2,
      reportLength: 64,
      byteCountOffset: 1,
      aimOffset: null,
      dataOffset: 2,
      dataCapacity: 56,
      continued: { offset: 63, mask: 1 },
    });
  });

  it('decodes a layout only its descriptor knows (report 1, data before the AIM id, 66 bytes)', () => {
    const layout = layoutFromDescriptor(descriptor('generic'));
    expect(layout).toMatchObject({
      reportId: 1,
      reportLength: 66,
      byteCountOffset: 1,
      dataOffset: 2,
      dataCapacity: 60,
      aimOffset: 62,
      continued: { offset: 65, mask: 1 },
    });
    const reportList = reports(posFixtures, 'longTicketGeneric');
    expect(replay(new HidPosDecoder({ layout }), reportList)).toEqual([posScan(longTicket, ']Q1', reportList.length, layout!.name)]);
    // Without the descriptor the same reports are not scan data (report 1), so nothing wrong is delivered.
    expect(replay(new HidPosDecoder(), reportList)).toEqual([]);
  });

  it('a keyboard descriptor, an empty one and a truncated one give no layout', () => {
    expect(layoutFromDescriptor(descriptor('keyboardOnly'))).toBeNull();
    expect(layoutFromDescriptor(new Uint8Array())).toBeNull();
    expect(layoutFromDescriptor(descriptor('standard').subarray(0, 20))).toBeNull();
  });
});

describe('HidPosDecoder on bad input', () => {
  it('never delivers NUL padding: data read with the wrong offsets is a problem, not a scan', () => {
    const events = replay(new HidPosDecoder({ layout: STANDARD_LAYOUT }), reports(posFixtures, 'newlandReadAsStandard'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'padding_in_data',
        message: `a 6-byte scan read as "${standard}" holds NUL padding: the layout was misread; the scan was dropped`,
      },
    ]);
  });

  it('names a scanner in SNAPI mode once, and delivers nothing from it', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'snapiReports'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'unreadable_mode',
        message: 'the scanner sends SNAPI reports (report 0x22), not HID-POS scanned data',
      },
    ]);
  });

  it('reports a short report and decodes the next scan cleanly', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'shortReportThenScan'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'wrong_report_length',
        message: `a scanned-data report of the layout "${standard}" is 64 bytes, got 7`,
      },
      ean13Scan,
    ]);
  });

  it('detects a lost last report when the next scan has another symbology, and keeps that scan', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'lostLastReportThenOtherSymbology'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'symbology_changed',
        message: 'a continuation report changed symbology from ]Q1 to ]C0; the previous scan was incomplete',
      },
      posScan('GATE-NORTH-07', ']C0', 1),
    ]);
  });

  it('cannot see a lost last report within one symbology; reset() drops the fragment and says so', () => {
    const prefix = reports(posFixtures, 'lostLastReportSameSymbology', 'firstScanPrefix');
    const nextScan = reports(posFixtures, 'lostLastReportSameSymbology', 'nextScan');

    // Without reset the fragment and the next scan run together: garbage, not the setup code.
    const glued = replay(new HidPosDecoder(), [...prefix, ...nextScan]);
    expect(glued).toHaveLength(1);
    expect(glued[0]).toMatchObject({ kind: 'scan' });
    expect(glued[0]).not.toMatchObject({ text: setup });

    // With the pause (the device manager tells the decoder when no report follows in time) the next scan is clean.
    const decoder = new HidPosDecoder();
    expect(replay(decoder, prefix)).toEqual([]);
    expect(decoder.endOfInput()).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'incomplete_scan',
        message: 'discarded 112 bytes of a scan whose last report never arrived',
      },
    ]);
    expect(decoder.endOfInput()).toEqual([]);
    replay(decoder, prefix);
    // Unplugged mid-scan: reset() drops it the same way.
    expect(decoder.reset()).toEqual({
      kind: 'problem',
      source: 'hid-pos',
      code: 'incomplete_scan',
      message: 'discarded 112 bytes of a scan whose last report never arrived',
    });
    expect(decoder.reset()).toBeNull();
    expect(replay(decoder, nextScan)).toEqual([posScan(setup, ']Q1', nextScan.length, standard, 'crlf')]);
  });

  it('reports an impossible byte count and discards the rest of that scan, not the next one', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'badByteCountMidScan'));
    expect(events).toEqual([
      { kind: 'problem', source: 'hid-pos', code: 'bad_byte_count', message: 'byte count 64 exceeds the 56-byte data field' },
      ean13Scan,
    ]);
  });

  it('reports bytes that are not UTF-8', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'notUtf8'))).toEqual([
      { kind: 'problem', source: 'hid-pos', code: 'not_utf8', message: 'a 5-byte scan is not valid UTF-8' },
    ]);
  });

  it('stops a runaway scan at the size limit and recovers for the next scan', () => {
    const decoder = new HidPosDecoder({ maxScanBytes: 100 });
    const events = replay(decoder, [...reports(posFixtures, 'ticket'), ...reports(posFixtures, 'ean13')]);
    expect(events).toEqual([
      { kind: 'problem', source: 'hid-pos', code: 'scan_too_long', message: 'a scan exceeded 100 bytes' },
      ean13Scan,
    ]);
  });

  it('never throws and never quotes scanned data, whatever the bytes', () => {
    const random = seededRandom(0x5eed);
    const decoder = new HidPosDecoder();
    const ticketReports = reports(posFixtures, 'ticket');
    for (let i = 0; i < 5000; i++) {
      const length = Math.floor(random() * 80);
      const report = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      if (length > 0 && random() < 0.7) report[0] = 0x02; // mostly scanned-data reports
      const fragment = ticketReports[i % ticketReports.length]!;
      const events = [...decoder.push(fragment), ...decoder.push(report), ...(i % 7 === 0 ? decoder.endOfInput() : [])];
      for (const event of events) {
        expect(['scan', 'problem']).toContain(event.kind);
        if (event.kind === 'problem') expect(event.message).not.toMatch(/tkt1|eyJ/);
        // Whatever arrives, a delivered scan never carries padding or control characters.
        if (event.kind === 'scan') expect([...event.text].filter((character) => character.charCodeAt(0) < 0x20)).toEqual([]);
      }
    }
  });
});

/** Deterministic xorshift32, so a failing fuzz case reproduces. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}
