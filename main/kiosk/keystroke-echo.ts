/**
 * One scan from a keyboard-mode scanner, not two.
 *
 * A keyboard-mode scanner that the kiosk reads over HID (listed by vendor and
 * product id, docs/kiosk.md "Which scanners work") is still a keyboard to the
 * operating system: reading its reports does not take it away from the OS, so
 * the same scan is also typed into the focused window, where the keyboard-wedge
 * decoder sends it again. The two copies arrive in either order, a moment
 * apart. Without this, the second would be checked in as a second scan of the
 * ticket and the door would show "already admitted here" over the ADMIT.
 *
 * So a scan from the window with the same text as a keyboard-mode HID scan
 * within ECHO_WINDOW_MS (or the other way round) is that same scan: it gets
 * the first copy's answer and runs nothing. HID-POS scanners do not type, and
 * two copies from the same source are two real scans: neither is merged.
 */

export type ScanOrigin = 'window' | 'hid-pos' | 'hid-keyboard';

/** Longer than a scanner takes to type a 500-character code (two reports per character, ~1 ms each). */
export const ECHO_WINDOW_MS = 3000;

/** The origin whose copies are echoes of `origin`'s, if any. */
const ECHO_OF: Partial<Record<ScanOrigin, ScanOrigin>> = { window: 'hid-keyboard', 'hid-keyboard': 'window' };

interface Recent<T> {
  origin: ScanOrigin;
  text: string;
  atMs: number;
  answer: Promise<T>;
}

export class KeystrokeEchoMerger<T> {
  /** Copies seen within the last ECHO_WINDOW_MS and not yet paired, oldest first. */
  private recent: Recent<T>[] = [];

  /** Runs `scan` unless this copy is the echo of an earlier one, whose answer it then shares. */
  merge(origin: ScanOrigin, text: string, nowMs: number, scan: () => Promise<T>): Promise<T> {
    this.recent = this.recent.filter((copy) => nowMs - copy.atMs <= ECHO_WINDOW_MS);
    const echoed = this.recent.findIndex((copy) => ECHO_OF[origin] === copy.origin && copy.text === text);
    if (echoed >= 0) {
      // Each scan has one echo: the pair is done, and a third copy is a new scan.
      const [original] = this.recent.splice(echoed, 1);
      return original!.answer;
    }
    const answer = scan();
    if (ECHO_OF[origin] !== undefined) this.recent.push({ origin, text, atMs: nowMs, answer });
    return answer;
  }
}
