import { describe, expect, it } from 'vitest';
import { KeyboardReportDecoder } from '../../../main/kiosk/scanner/keyboard-decoder.js';
import type { ReadDetails, ScanEvent } from '../../../main/kiosk/scanner/scan-event.js';
import { decodeSetupCode, decodeTicketCode } from '../../../protocol/index.js';
import { code, keyboardFixtures, replay, reports } from '../../support/unit/scanner-reports.js';

/** A scan as the decoder delivers it; `units` counts key presses, the terminator's included. */
function scan(text: string, read: Partial<ReadDetails> = {}): ScanEvent {
  return {
    kind: 'scan',
    source: 'hid-keyboard',
    text,
    symbologyId: null,
    read: { terminator: 'cr', prefixKeys: [], suffixKeys: [], units: [...text].length + 1, durationMs: 0, ...read },
  };
}
const boot = (modifiers: number, ...keys: number[]): Uint8Array => Uint8Array.from([modifiers, 0, ...keys, 0, 0, 0, 0, 0, 0].slice(0, 8));
const RELEASE = boot(0);
const ENTER = 0x28;

describe('KeyboardReportDecoder on recorded boot reports', () => {
  it('types a whole tkt1 code with left and right shift and ends it at Enter', () => {
    const ticket = code(keyboardFixtures, 'ticket');
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'ticketPressReleaseEnter'));
    expect(events).toEqual([scan(ticket)]);
    expect(decodeTicketCode(ticket).payload.hn).toBe('Ada L.');
  });

  it('counts only newly pressed keys under rollover and held-key repeats; Tab ends the scan', () => {
    const setup = code(keyboardFixtures, 'setup');
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'setupRolloverTab'));
    expect(events).toEqual([scan(setup, { terminator: 'tab' })]);
    expect(decodeSetupCode(setup).token).toBe('q7Zt0m4H1c9VwX2kLr8YbN3eDf5GsJ6u');
  });

  it('ignores a phantom (ErrorRollOver) report in the middle of a scan', () => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'phantomStateMidScan'))).toEqual([scan('tkt1.Ab')]);
  });

  it('reads keypad digits and Keypad Enter', () => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'keypadDigitsKeypadEnter'))).toEqual([scan('1230')]);
  });
});

describe('KeyboardReportDecoder: every terminator, and no scan lost after a control key', () => {
  it('node-hid #323: Enter then Ctrl+Shift+J (CR LF) after each scan; every scan arrives, nothing is reported', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'issue323CrThenCtrlShiftJ'));
    expect(events).toEqual([scan('4006381333931'), scan('5901234123457')]);
  });

  it.each([
    ['Ctrl+J (LF)', 'terminatedByLfCtrlJ', 'lf-scan', 'lf'],
    ['Ctrl+M (CR)', 'terminatedByCrCtrlM', 'cr-scan', 'cr'],
    ['Ctrl+I (Tab)', 'terminatedByTabCtrlI', 'tab-scan', 'tab'],
    ['Tab', 'terminatedByTab', 'tab-key', 'tab'],
  ] as const)('%s ends a scan', (_label, fixture, text, terminator) => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, fixture))).toEqual([scan(text, { terminator })]);
  });

  it('CR LF is one ending: the scan goes at the CR, the LF ends nothing, the next scan is whole', () => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'terminatedByCrLfKeys'))).toEqual([
      scan('crlf-scan'),
      scan('next'),
    ]);
  });

  it('no terminator: the pause (endOfInput, from the device manager) delivers the scan', () => {
    const decoder = new KeyboardReportDecoder();
    const reportList = reports(keyboardFixtures, 'noTerminator');
    // Key reports 4 ms apart: the read lasts from the first key to the last.
    const events = reportList.flatMap((report, index) => decoder.push(report, 500 + index * 4));
    expect(events).toEqual([]);
    expect(decoder.isAssembling).toBe(true);
    expect(decoder.endOfInput(500 + reportList.length * 4 + 300)).toEqual([
      scan('pause-scan', { terminator: 'pause', units: 10, durationMs: (reportList.length - 2) * 4 }),
    ]);
    expect(decoder.isAssembling).toBe(false);
    expect(decoder.endOfInput()).toEqual([]);
  });

  it('a 490-character ticket with CR LF, as Ctrl+Shift+J', () => {
    const longTicket = code(keyboardFixtures, 'longTicket');
    expect(longTicket).toHaveLength(490);
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'longTicketCrLf'))).toEqual([scan(longTicket)]);
  });

  it('STX before and ETX after the data are framing keys, named, not text', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'stxEtxFraming'));
    expect(events).toEqual([scan('framed', { prefixKeys: ['Ctrl+B (STX)'], suffixKeys: ['Ctrl+C (ETX)'], units: 9 })]);
  });

  it('a key with no character before each scan is reported once, and never swallows a scan', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'functionKeyPrefixTwice'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-keyboard',
        code: 'unmapped_key',
        message: 'F1 types no character on a US layout; taken as framing around the scan (reported once)',
      },
      scan('first', { prefixKeys: ['F1'], units: 7 }),
      scan('second', { prefixKeys: ['F1'], units: 8 }),
    ]);
  });

  it('a key with no character after the data is a suffix: reported once when the scan ends, the scan delivered', () => {
    const F12 = 0x45;
    const decoder = new KeyboardReportDecoder();
    const typeThenF12 = (usage: number) => [boot(0, usage), RELEASE, boot(0, F12), RELEASE, boot(0, ENTER), RELEASE];
    expect(replay(decoder, [...typeThenF12(0x04), ...typeThenF12(0x05)])).toEqual([
      {
        kind: 'problem',
        source: 'hid-keyboard',
        code: 'unmapped_key',
        message: 'F12 types no character on a US layout; taken as framing around the scan (reported once)',
      },
      scan('a', { suffixKeys: ['F12'], units: 3 }),
      scan('b', { suffixKeys: ['F12'], units: 3 }),
    ]);
  });

  it('a control key between two characters drops that scan, through its own Enter only', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'controlKeyMidScanThenScan'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-keyboard',
        code: 'unmapped_key',
        message: 'Ctrl+B (STX) came between two characters of a scan; the scan was dropped',
      },
      scan('clean'),
    ]);
  });
});

describe('KeyboardReportDecoder key handling', () => {
  it('maps shifted symbols of the US layout', () => {
    const SHIFT = 0x02;
    const keys: Array<[number, number]> = [
      [0, 0x37], // .
      [0, 0x2d], // -
      [SHIFT, 0x2d], // _
      [0, 0x38], // /
      [SHIFT, 0x33], // :
      [0, 0x2e], // =
      [SHIFT, 0x1f], // @
      [SHIFT, 0x38], // ?
      [0x20, 0x04], // A with right shift
    ];
    const decoder = new KeyboardReportDecoder();
    const events = replay(decoder, [...keys.flatMap(([modifiers, usage]) => [boot(modifiers, usage), RELEASE]), boot(0, ENTER)]);
    expect(events).toEqual([scan('.-_/:=@?A')]);
  });

  it('does not double a key held across repeated identical reports', () => {
    const A = 0x04;
    const events = replay(new KeyboardReportDecoder(), [boot(0, A), boot(0, A), boot(0, A), RELEASE, boot(0, A), RELEASE, boot(0, ENTER)]);
    expect(events).toEqual([scan('aa')]);
  });

  it('ignores a bare Enter', () => {
    expect(replay(new KeyboardReportDecoder(), [boot(0, ENTER), RELEASE])).toEqual([]);
  });

  it('accepts a report with a report ID byte in front (9 bytes)', () => {
    const withId = (report: Uint8Array) => Uint8Array.from([0x01, ...report]);
    const events = replay(new KeyboardReportDecoder(), [boot(0, 0x1e), RELEASE, boot(0, ENTER)].map(withId));
    expect(events).toEqual([scan('1')]);
  });
});

describe('KeyboardReportDecoder on bad input', () => {
  it('reports a truncated report, drops that scan through its Enter, then decodes the next', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'truncatedReportMidScanThenScan'));
    expect(events).toEqual([
      { kind: 'problem', source: 'hid-keyboard', code: 'wrong_report_length', message: 'a keyboard boot report is 8 bytes, got 3' },
      scan('tkt1.BBB'),
    ]);
  });

  it('reports a key with no character between two characters and drops the rest of that scan', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'functionKeyMidScanThenScan'));
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-keyboard',
        code: 'unmapped_key',
        message: 'F1 came between two characters of a scan; the scan was dropped',
      },
      scan('next'),
    ]);
  });

  it('a Ctrl chord is never a letter: Ctrl+M alone is a bare CR, and the next scans are whole', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'ctrlChordThenScan'));
    expect(events).toEqual([scan('ok'), scan('fine')]);
  });

  it('an Alt or GUI chord is never a terminator or a letter', () => {
    const ALT = 0x04;
    const events = replay(new KeyboardReportDecoder(), [
      boot(0, 0x04),
      RELEASE,
      boot(ALT, 0x10),
      RELEASE,
      boot(0, 0x05),
      RELEASE,
      boot(0, ENTER),
    ]);
    expect(events).toEqual([
      {
        kind: 'problem',
        source: 'hid-keyboard',
        code: 'unmapped_key',
        message: 'Alt+key 0x10 came between two characters of a scan; the scan was dropped',
      },
    ]);
  });

  it('reset() drops characters typed without a terminator and says so', () => {
    const decoder = new KeyboardReportDecoder();
    replay(decoder, [boot(0, 0x17), RELEASE, boot(0, 0x0e), RELEASE]); // "tk"
    expect(decoder.isAssembling).toBe(true);
    expect(decoder.reset()).toEqual({
      kind: 'problem',
      source: 'hid-keyboard',
      code: 'incomplete_scan',
      message: 'discarded 2 typed characters that no terminator or pause ended',
    });
    expect(decoder.isAssembling).toBe(false);
    expect(replay(decoder, [boot(0, 0x1e), RELEASE, boot(0, ENTER)])).toEqual([scan('1')]);
  });

  it('stops a runaway scan at the length limit without emitting its tail', () => {
    const decoder = new KeyboardReportDecoder({ maxScanLength: 3 });
    const typeA = [boot(0, 0x04), RELEASE];
    const events = replay(decoder, [...typeA, ...typeA, ...typeA, ...typeA, ...typeA, boot(0, ENTER), RELEASE, ...typeA, boot(0, ENTER)]);
    expect(events).toEqual([
      { kind: 'problem', source: 'hid-keyboard', code: 'scan_too_long', message: 'a scan exceeded 3 characters' },
      scan('a'),
    ]);
  });

  it('never throws on random bytes', () => {
    let state = 0x1234_5678;
    const random = () => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state / 0x1_0000_0000;
    };
    const decoder = new KeyboardReportDecoder();
    for (let i = 0; i < 5000; i++) {
      const length = random() < 0.8 ? 8 : Math.floor(random() * 12);
      const report = Uint8Array.from({ length }, () => (random() < 0.5 ? 0 : Math.floor(random() * 256)));
      for (const event of decoder.push(report)) expect(['scan', 'problem']).toContain(event.kind);
    }
  });
});
