import { describe, expect, it } from 'vitest';
import { HidPosDecoder } from '../../../main/kiosk/scanner/hid-pos-decoder.js';
import type { ScanEvent } from '../../../main/kiosk/scanner/scan-event.js';
import { decodeSetupCode, decodeTicketCode } from '../../../protocol/index.js';
import { code, posFixtures, replay, reports } from './fixtures.js';

const ticket = code(posFixtures, 'ticket');
const setup = code(posFixtures, 'setup');
const ean13Scan: ScanEvent = { kind: 'scan', source: 'hid-pos', text: '4006381333931', symbologyId: ']E0' };

describe('HidPosDecoder on recorded scanned-data reports', () => {
  it('assembles a long tkt1 code from its continuation reports, byte for byte', () => {
    const decoder = new HidPosDecoder();
    const ticketReports = reports(posFixtures, 'ticket');
    expect(ticketReports.length).toBeGreaterThan(5);

    const beforeLast = ticketReports.slice(0, -1).flatMap((report) => decoder.push(report));
    expect(beforeLast).toEqual([]);
    expect(decoder.isAssembling).toBe(true);

    const last = decoder.push(ticketReports.at(-1)!);
    expect(last).toEqual([{ kind: 'scan', source: 'hid-pos', text: ticket, symbologyId: ']Q1' }]);
    expect(decoder.isAssembling).toBe(false);
    // The assembled string is a valid ticket code for the protocol layer.
    expect(decodeTicketCode(ticket).payload.tid).toBe('01JAZ8K6Q3M9X2V7T5R4N1P0WB');
  });

  it('strips the CR LF suffix a scanner adds and keeps the tsetup1 code intact', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'setupWithCrLfSuffix'));
    expect(events).toEqual([{ kind: 'scan', source: 'hid-pos', text: setup, symbologyId: ']Q1' }]);
    expect(decodeSetupCode(setup).gate_id).toBe('north');
  });

  it('decodes a single-report scan and reads its AIM symbology identifier', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'ean13'))).toEqual([ean13Scan]);
  });

  it('skips reports with another report ID without breaking the scan in progress', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'triggerReportBetweenContinuations'));
    expect(events).toEqual([{ kind: 'scan', source: 'hid-pos', text: ticket, symbologyId: ']Q1' }]);
  });

  it('joins bytes before UTF-8 decoding, so a character split across reports survives', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'utf8StraddlingReports'));
    expect(events).toEqual([{ kind: 'scan', source: 'hid-pos', text: code(posFixtures, 'straddling'), symbologyId: ']Q1' }]);
  });

  it('ignores an empty report (byte count 0, not continued)', () => {
    expect(replay(new HidPosDecoder(), reports(posFixtures, 'emptyReport'))).toEqual([]);
  });
});

describe('HidPosDecoder on bad input', () => {
  it('reports a short report and decodes the next scan cleanly', () => {
    const events = replay(new HidPosDecoder(), reports(posFixtures, 'shortReportThenScan'));
    expect(events).toEqual([
      { kind: 'problem', source: 'hid-pos', code: 'wrong_report_length', message: 'a scanned-data report is 64 bytes, got 7' },
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
      { kind: 'scan', source: 'hid-pos', text: 'GATE-NORTH-07', symbologyId: ']C0' },
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

    // With reset (the device manager calls it when no report follows in time) the next scan is clean.
    const decoder = new HidPosDecoder();
    expect(replay(decoder, prefix)).toEqual([]);
    expect(decoder.reset()).toEqual({
      kind: 'problem',
      source: 'hid-pos',
      code: 'incomplete_scan',
      message: 'discarded 112 bytes of a scan whose last report never arrived',
    });
    expect(decoder.reset()).toBeNull();
    expect(replay(decoder, nextScan)).toEqual([{ kind: 'scan', source: 'hid-pos', text: setup, symbologyId: ']Q1' }]);
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
      for (const event of [...decoder.push(fragment), ...decoder.push(report)]) {
        expect(['scan', 'problem']).toContain(event.kind);
        if (event.kind === 'problem') expect(event.message).not.toMatch(/tkt1|eyJ/);
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
