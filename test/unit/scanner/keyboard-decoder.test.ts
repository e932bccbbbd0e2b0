import { describe, expect, it } from 'vitest';
import { KeyboardReportDecoder } from '../../../main/kiosk/scanner/keyboard-decoder.js';
import type { ScanEvent } from '../../../main/kiosk/scanner/scan-event.js';
import { decodeSetupCode, decodeTicketCode } from '../../../protocol/index.js';
import { code, keyboardFixtures, replay, reports } from './fixtures.js';

const scan = (text: string): ScanEvent => ({ kind: 'scan', source: 'keyboard', text, symbologyId: null });
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
    expect(events).toEqual([scan(setup)]);
    expect(decodeSetupCode(setup).token).toBe('q7Zt0m4H1c9VwX2kLr8YbN3eDf5GsJ6u');
  });

  it('ignores a phantom (ErrorRollOver) report in the middle of a scan', () => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'phantomStateMidScan'))).toEqual([scan('tkt1.Ab')]);
  });

  it('reads keypad digits and Keypad Enter', () => {
    expect(replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'keypadDigitsKeypadEnter'))).toEqual([scan('1230')]);
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
      { kind: 'problem', source: 'keyboard', code: 'wrong_report_length', message: 'a keyboard boot report is 8 bytes, got 3' },
      scan('tkt1.BBB'),
    ]);
  });

  it('reports a key with no character and drops the rest of that scan', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'functionKeyMidScanThenScan'));
    expect(events).toEqual([
      { kind: 'problem', source: 'keyboard', code: 'unmapped_key', message: 'key usage 0x3a with modifiers 0x00 types no character on a US layout' },
      scan('next'),
    ]);
  });

  it('treats a Ctrl chord as a problem, not as a letter', () => {
    const events = replay(new KeyboardReportDecoder(), reports(keyboardFixtures, 'ctrlChordThenScan'));
    expect(events).toEqual([
      { kind: 'problem', source: 'keyboard', code: 'unmapped_key', message: 'key usage 0x10 with modifiers 0x01 types no character on a US layout' },
      scan('fine'),
    ]);
  });

  it('reset() drops characters typed without a terminator and says so', () => {
    const decoder = new KeyboardReportDecoder();
    replay(decoder, [boot(0, 0x17), RELEASE, boot(0, 0x0e), RELEASE]); // "tk"
    expect(decoder.isAssembling).toBe(true);
    expect(decoder.reset()).toEqual({
      kind: 'problem',
      source: 'keyboard',
      code: 'incomplete_scan',
      message: 'discarded 2 typed characters without Enter or Tab',
    });
    expect(decoder.isAssembling).toBe(false);
    expect(replay(decoder, [boot(0, 0x1e), RELEASE, boot(0, ENTER)])).toEqual([scan('1')]);
  });

  it('stops a runaway scan at the length limit without emitting its tail', () => {
    const decoder = new KeyboardReportDecoder({ maxScanLength: 3 });
    const typeA = [boot(0, 0x04), RELEASE];
    const events = replay(decoder, [...typeA, ...typeA, ...typeA, ...typeA, ...typeA, boot(0, ENTER), RELEASE, ...typeA, boot(0, ENTER)]);
    expect(events).toEqual([
      { kind: 'problem', source: 'keyboard', code: 'scan_too_long', message: 'a scan exceeded 3 characters' },
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
