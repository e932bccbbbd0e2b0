/**
 * Decoder for HID keyboard boot reports from a scanner in keyboard mode.
 *
 * Boot report layout (HID 1.11, Appendix B.1 "Protocol 1 (Keyboard)"):
 *   byte 0     modifier bits: 0 LCtrl, 1 LShift, 2 LAlt, 3 LGUI,
 *                             4 RCtrl, 5 RShift, 6 RAlt, 7 RGUI
 *   byte 1     reserved
 *   bytes 2..7 up to six usage ids of keys held down (0 = none), Keyboard/Keypad page 0x07
 *
 * A report lists the keys *held*, not key presses, so a key counts once when
 * it first appears; it repeats only after a report without it (a release).
 * A report whose key slots hold ErrorRollOver is a phantom state and changes
 * nothing. Enter, Keypad Enter and Tab end a scan. Pure, no timers, never
 * throws: device garbage becomes a DecodeProblem.
 */
import {
  DEFAULT_MAX_SCAN_BYTES,
  decodeProblem,
  type DecodeProblem,
  type ScanEvent,
} from './scan-event.js';
import { TERMINATOR_KEYS, isKeyboardErrorCode, usLayoutCharacter } from './us-keyboard-layout.js';

export const BOOT_REPORT_LENGTH = 8;
const KEYS_OFFSET = 2;

const SHIFT_BITS = 0x02 | 0x20;
/** Ctrl, Alt and GUI on either side: a chord with them is a shortcut, not text. */
const CHORD_BITS = 0x01 | 0x10 | 0x04 | 0x40 | 0x08 | 0x80;

/** Generic Desktop page (0x01), usage Keyboard (0x06): the collection of a keyboard interface. */
export const GENERIC_DESKTOP_USAGE_PAGE = 0x01;
export const KEYBOARD_USAGE = 0x06;

export interface KeyboardDecoderOptions {
  maxScanLength?: number;
}

export class KeyboardReportDecoder {
  private readonly maxScanLength: number;
  private heldKeys: ReadonlySet<number> = new Set();
  private text = '';
  /** After a problem mid-scan: drop keys through the next terminator, so a scan's tail never passes for a scan. */
  private discarding = false;

  constructor(options: KeyboardDecoderOptions = {}) {
    this.maxScanLength = options.maxScanLength ?? DEFAULT_MAX_SCAN_BYTES;
  }

  /** True while a scan is under way: keys were typed and no terminator has come yet. */
  get isAssembling(): boolean {
    return this.text.length > 0 || this.discarding;
  }

  /**
   * Feed one report: 8 bytes, or 9 when the device numbers its reports and
   * node-hid put the report ID first. Returns the scans and problems it completed.
   */
  push(report: Uint8Array): ScanEvent[] {
    const boot = report.length === BOOT_REPORT_LENGTH + 1 ? report.subarray(1) : report;
    if (boot.length !== BOOT_REPORT_LENGTH) {
      // A lost or mangled report mid-scan may have held a key: the scan is unusable.
      this.heldKeys = new Set();
      return [this.fail('wrong_report_length', `a keyboard boot report is ${BOOT_REPORT_LENGTH} bytes, got ${report.length}`, this.isAssembling)];
    }
    const modifiers = boot[0] ?? 0;
    const keys = [...boot.subarray(KEYS_OFFSET)].filter((usage) => usage !== 0);
    if (keys.some(isKeyboardErrorCode)) return [];

    const newlyPressed = keys.filter((usage) => !this.heldKeys.has(usage));
    this.heldKeys = new Set(keys);

    const events: ScanEvent[] = [];
    for (const usage of newlyPressed) {
      const event = this.press(usage, modifiers);
      if (event) events.push(event);
    }
    return events;
  }

  /**
   * Drop typed characters that no terminator ended. Returns an
   * `incomplete_scan` problem when something was discarded.
   */
  reset(): DecodeProblem | null {
    const discarded = this.text.length;
    this.text = '';
    this.heldKeys = new Set();
    this.discarding = false;
    return discarded > 0 ? decodeProblem('keyboard', 'incomplete_scan', `discarded ${discarded} typed characters without Enter or Tab`) : null;
  }

  private press(usage: number, modifiers: number): ScanEvent | null {
    if (TERMINATOR_KEYS.has(usage)) {
      const text = this.text;
      const wasDiscarding = this.discarding;
      this.text = '';
      this.discarding = false;
      if (text.length === 0 || wasDiscarding) return null; // a bare Enter, or the end of a scan already reported
      return { kind: 'scan', source: 'keyboard', text, symbologyId: null };
    }
    if (this.discarding) return null;
    const character = (modifiers & CHORD_BITS) === 0 ? usLayoutCharacter(usage, (modifiers & SHIFT_BITS) !== 0) : null;
    if (character === null) {
      const usageHex = usage.toString(16).padStart(2, '0');
      const modifiersHex = modifiers.toString(16).padStart(2, '0');
      return this.fail('unmapped_key', `key usage 0x${usageHex} with modifiers 0x${modifiersHex} types no character on a US layout`, true);
    }
    if (this.text.length >= this.maxScanLength) {
      return this.fail('scan_too_long', `a scan exceeded ${this.maxScanLength} characters`, true);
    }
    this.text += character;
    return null;
  }

  /** Typed characters are dropped: a scan missing one character is worthless. */
  private fail(code: DecodeProblem['code'], message: string, discardRest: boolean): DecodeProblem {
    this.text = '';
    this.discarding = discardRest;
    return decodeProblem('keyboard', code, message);
  }
}
