/**
 * One scan, however many times the scanner reads it (docs/kiosk.md "Double
 * reads").
 *
 * Handheld and presentation scanners often read the same code twice a few
 * milliseconds apart (continuous mode, a trigger held down), and a
 * keyboard-mode scanner read over HID also types its scan into the window.
 * Checked in twice, the person just admitted would see a red "already used"
 * over their ADMIT. So any read of a string within the repeat window of that
 * string's first read is the same scan: it runs nothing and gets no verdict of
 * its own.
 *
 * The window opens at the first read and stays open while that read is being
 * decided and while its answer is on screen: it closes at the later of
 * `windowMs` after the first read and the answer's screen time after the
 * answer is known. A read after that is a new scan, so a ticket passed back
 * over the barrier is still caught as "already used".
 *
 * Copies are told apart by origin: a window copy of a keyboard-mode HID read
 * (or the other way round) is that read's keystroke echo, not a repeat. Each
 * HID read has at most one echo, so echoes are paired by count.
 */

/** Where a read came from: the window's keyboard wedge, or a HID scanner read by the kiosk. */
export type ScanOrigin = 'window' | 'hid-pos' | 'hid-keyboard';

/** Default repeat window: longer than any double read, shorter than a pass-back over the barrier. */
export const DEFAULT_REPEAT_READ_WINDOW_MS = 3000;

/** The origin whose copies are keystroke echoes of `origin`'s reads. */
const ECHO_OF: Partial<Record<ScanOrigin, ScanOrigin>> = { window: 'hid-keyboard', 'hid-keyboard': 'window' };

export type ReadOutcome<T> =
  /** A new scan: `answer` is what running it gave. */
  | { kind: 'first'; answer: Promise<T> }
  /** The keystroke copy of a keyboard-mode HID read: it shares that read's answer. */
  | { kind: 'echo'; answer: Promise<T> }
  /** The scanner read the same code again: nothing ran. `reads` counts the reads of this scan so far. */
  | { kind: 'repeat'; answer: Promise<T>; reads: number; sinceFirstMs: number; firstOrigin: ScanOrigin };

export interface RepeatReadOptions<T> {
  windowMs: number;
  now: () => number;
  /** How long an answer stays on screen once known (0 for answers that show nothing). */
  onScreenMs: (answer: T) => number;
}

interface Scan<T> {
  firstOrigin: ScanOrigin;
  firstReadAtMs: number;
  /** Until the answer is known the window stays open; then this is when it closes. */
  closesAtMs: number | null;
  answer: Promise<T>;
  readsByOrigin: Map<ScanOrigin, number>;
}

export class RepeatReadFilter<T> {
  private readonly scans = new Map<string, Scan<T>>();

  constructor(private readonly options: RepeatReadOptions<T>) {}

  /** Runs `run` for a new scan; otherwise says which earlier read this one repeats or echoes. */
  read(origin: ScanOrigin, text: string, run: () => Promise<T>): ReadOutcome<T> {
    const nowMs = this.options.now();
    this.forgetClosed(nowMs);
    const scan = this.scans.get(text);
    if (!scan) return { kind: 'first', answer: this.start(origin, text, nowMs, run) };

    const reads = (scan.readsByOrigin.get(origin) ?? 0) + 1;
    scan.readsByOrigin.set(origin, reads);
    const echoed = ECHO_OF[origin];
    if (echoed !== undefined && reads <= (scan.readsByOrigin.get(echoed) ?? 0)) return { kind: 'echo', answer: scan.answer };
    // Echo pairs count once: the scan was read as often as its busiest origin saw it.
    const totalReads = Math.max(...scan.readsByOrigin.values());
    return { kind: 'repeat', answer: scan.answer, reads: totalReads, sinceFirstMs: nowMs - scan.firstReadAtMs, firstOrigin: scan.firstOrigin };
  }

  private start(origin: ScanOrigin, text: string, nowMs: number, run: () => Promise<T>): Promise<T> {
    const answer = run();
    const scan: Scan<T> = { firstOrigin: origin, firstReadAtMs: nowMs, closesAtMs: null, answer, readsByOrigin: new Map([[origin, 1]]) };
    this.scans.set(text, scan);
    const close = (onScreenMs: number): void => {
      scan.closesAtMs = Math.max(scan.firstReadAtMs + this.options.windowMs, this.options.now() + onScreenMs);
    };
    answer.then(
      (value) => close(this.options.onScreenMs(value)),
      () => close(0),
    );
    return answer;
  }

  private forgetClosed(nowMs: number): void {
    for (const [text, scan] of this.scans) {
      if (scan.closesAtMs !== null && nowMs > scan.closesAtMs) this.scans.delete(text);
    }
  }
}
