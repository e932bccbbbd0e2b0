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
 * nothing.
 *
 * How a scan ends (docs/kiosk.md "Terminators, prefixes and suffixes"):
 * Enter, Keypad Enter and Ctrl+M are CR; Ctrl+J is LF; Tab and Ctrl+I are
 * Tab (Shift does not matter: some scanners send Ctrl+Shift+J). CR LF is one
 * ending: the scan goes out at the CR and the LF, with nothing typed after
 * it, ends nothing. A scanner with no terminator is ended by a pause: the
 * device manager calls `endOfInput` when no report followed in time.
 *
 * Other Ctrl chords (Ctrl+B for STX, Ctrl+C for ETX...) and keys that type no
 * character are framing when they come before the data or after it: they are
 * named in the read details and left out of the text. Between two characters
 * they make the scan unusable; it is reported and dropped through its own
 * end, never into the next scan. Pure, no timers, never throws: device
 * garbage becomes a DecodeProblem.
 */
import {
  DEFAULT_MAX_SCAN_BYTES,
  decodeProblem,
  type DecodeProblem,
  type ReadDetails,
  type ScanEvent,
  type ScanTerminator,
} from './scan-event.js';
import { controlChordName, isKeyboardErrorCode, terminatorKey, usLayoutCharacter } from './us-keyboard-layout.js';

export const BOOT_REPORT_LENGTH = 8;
const KEYS_OFFSET = 2;

const SHIFT_BITS = 0x02 | 0x20;
const CTRL_BITS = 0x01 | 0x10;
/** Alt and GUI on either side: a chord with them is a shortcut, never text or framing a scanner sends. */
const ALT_GUI_BITS = 0x04 | 0x40 | 0x08 | 0x80;

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
  private prefixKeys: string[] = [];
  /** Framing keys after the data: a suffix if the terminator (or a pause) follows, corruption if a character does. */
  private suffixKeys: string[] = [];
  private keyPresses = 0;
  private firstKeyAt: number | null = null;
  private lastKeyAt = 0;
  /** After a problem mid-scan: drop keys through this scan's end, so its tail never passes for a scan. */
  private discarding = false;
  /** Keys with no character already reported as framing: each is reported once, not on every scan. */
  private readonly reportedFramingKeys = new Set<string>();

  constructor(options: KeyboardDecoderOptions = {}) {
    this.maxScanLength = options.maxScanLength ?? DEFAULT_MAX_SCAN_BYTES;
  }

  /** True while a scan is under way: keys were typed and nothing has ended them yet. */
  get isAssembling(): boolean {
    return this.text.length > 0 || this.prefixKeys.length > 0 || this.discarding;
  }

  /**
   * Feed one report: 8 bytes, or 9 when the device numbers its reports and
   * node-hid put the report ID first. `atMs` is when it arrived (any
   * monotonic clock), for the read details. Returns what it completed.
   */
  push(report: Uint8Array, atMs = 0): ScanEvent[] {
    const boot = report.length === BOOT_REPORT_LENGTH + 1 ? report.subarray(1) : report;
    if (boot.length !== BOOT_REPORT_LENGTH) {
      // A lost or mangled report mid-scan may have held a key: the scan is unusable.
      this.heldKeys = new Set();
      const midScan = this.text.length > 0;
      const problem = decodeProblem(
        'hid-keyboard',
        'wrong_report_length',
        `a keyboard boot report is ${BOOT_REPORT_LENGTH} bytes, got ${report.length}`,
      );
      this.clearScan();
      this.discarding = midScan;
      return [problem];
    }
    const modifiers = boot[0] ?? 0;
    const keys = [...boot.subarray(KEYS_OFFSET)].filter((usage) => usage !== 0);
    if (keys.some(isKeyboardErrorCode)) return [];

    const newlyPressed = keys.filter((usage) => !this.heldKeys.has(usage));
    this.heldKeys = new Set(keys);

    return newlyPressed.flatMap((usage) => this.press(usage, modifiers, atMs));
  }

  /**
   * No report came for a while: a scanner without a terminator has finished
   * (terminator "pause"). Delivers what was typed; a dropped scan's tail ends here.
   */
  endOfInput(atMs = 0): ScanEvent[] {
    return this.end('pause', this.firstKeyAt === null ? atMs : this.lastKeyAt);
  }

  /**
   * Drop typed characters that nothing ended (the scanner was unplugged).
   * Returns an `incomplete_scan` problem when something was discarded.
   */
  reset(): DecodeProblem | null {
    const discarded = this.text.length;
    this.clearScan();
    this.heldKeys = new Set();
    this.discarding = false;
    return discarded > 0
      ? decodeProblem('hid-keyboard', 'incomplete_scan', `discarded ${discarded} typed characters that no terminator or pause ended`)
      : null;
  }

  private press(usage: number, modifiers: number, atMs: number): ScanEvent[] {
    const chord = (modifiers & ALT_GUI_BITS) !== 0;
    const ctrl = (modifiers & CTRL_BITS) !== 0;
    const terminator = chord ? null : terminatorKey(usage, ctrl);
    if (terminator) return this.end(terminator, atMs);

    this.firstKeyAt ??= atMs;
    this.lastKeyAt = atMs;
    this.keyPresses += 1;
    if (this.discarding) return [];
    const character = chord || ctrl ? null : usLayoutCharacter(usage, (modifiers & SHIFT_BITS) !== 0);
    if (character === null) return this.framingKey(usage, modifiers);
    if (this.suffixKeys.length > 0) {
      return [this.fail('unmapped_key', `${this.suffixKeys[0]} came between two characters of a scan; the scan was dropped`)];
    }
    if (this.text.length >= this.maxScanLength) {
      return [this.fail('scan_too_long', `a scan exceeded ${this.maxScanLength} characters`)];
    }
    this.text += character;
    return [];
  }

  /**
   * A key with no character: framing before or after the data, named in the
   * read details. Before the data it is reported now; after it, only once the
   * scan ends (a character after it makes it corruption instead).
   */
  private framingKey(usage: number, modifiers: number): ScanEvent[] {
    const ctrlOnly = (modifiers & CTRL_BITS) !== 0 && (modifiers & ALT_GUI_BITS) === 0;
    const name = (ctrlOnly ? controlChordName(usage, (modifiers & SHIFT_BITS) !== 0) : null) ?? keyName(usage, modifiers);
    if (this.text.length > 0) {
      this.suffixKeys.push(name);
      return [];
    }
    this.prefixKeys.push(name);
    return this.reportFramingOnce([name]);
  }

  /** Keys that type no character, each reported the first time it is seen; control characters are ordinary framing. */
  private reportFramingOnce(names: readonly string[]): DecodeProblem[] {
    const fresh = names.filter((name) => !/^Ctrl\+\S+ \(/.test(name) && !this.reportedFramingKeys.has(name));
    for (const name of fresh) this.reportedFramingKeys.add(name);
    return fresh.map((name) =>
      decodeProblem(
        'hid-keyboard',
        'unmapped_key',
        `${name} types no character on a US layout; taken as framing around the scan (reported once)`,
      ),
    );
  }

  private end(terminator: ScanTerminator, atMs: number): ScanEvent[] {
    const wasDiscarding = this.discarding;
    const text = this.text;
    const read: ReadDetails = {
      terminator,
      prefixKeys: this.prefixKeys,
      suffixKeys: this.suffixKeys,
      units: this.keyPresses + (terminator === 'pause' ? 0 : 1),
      durationMs: this.firstKeyAt === null ? 0 : Math.max(0, atMs - this.firstKeyAt),
    };
    this.clearScan();
    this.discarding = false;
    // A bare terminator (the LF of CR LF, an Enter alone), framing alone, or the end of a dropped scan.
    if (text.length === 0 || wasDiscarding) return [];
    return [...this.reportFramingOnce(read.suffixKeys), { kind: 'scan', source: 'hid-keyboard', text, symbologyId: null, read }];
  }

  /** The typed characters are dropped (a scan missing one is worthless), and so is the rest of this scan. */
  private fail(code: DecodeProblem['code'], message: string): DecodeProblem {
    this.text = '';
    this.suffixKeys = [];
    this.discarding = true;
    return decodeProblem('hid-keyboard', code, message);
  }

  private clearScan(): void {
    this.text = '';
    this.prefixKeys = [];
    this.suffixKeys = [];
    this.keyPresses = 0;
    this.firstKeyAt = null;
  }
}

/** "F1", "key 0x3a", with the modifiers held, for logs and the calibration diagnosis. */
function keyName(usage: number, modifiers: number): string {
  const held = [
    [CTRL_BITS, 'Ctrl'],
    [0x04 | 0x40, 'Alt'],
    [0x08 | 0x80, 'GUI'],
    [SHIFT_BITS, 'Shift'],
  ] as const;
  const prefix = held
    .filter(([bits]) => (modifiers & bits) !== 0)
    .map(([, name]) => `${name}+`)
    .join('');
  const functionKey = usage >= 0x3a && usage <= 0x45 ? `F${usage - 0x39}` : null;
  return `${prefix}${functionKey ?? `key 0x${usage.toString(16).padStart(2, '0')}`}`;
}
