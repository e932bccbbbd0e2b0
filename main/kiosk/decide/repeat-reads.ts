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

/** Where a read came from (the window's keyboard wedge, or a HID scanner read by the kiosk): the bridge's type, the page sees it too. */
export type { ScanOrigin } from '../../../renderer/kiosk-bridge-types.js';
import type { ScanOrigin } from '../../../renderer/kiosk-bridge-types.js';

/** Default repeat window: longer than any double read, shorter than a pass-back over the barrier. */
export const DEFAULT_REPEAT_READ_WINDOW_MS = 3000;

/**
 * How long the door screens show a verdict (the renderer's VERDICT_SHOWN_MS,
 * renderer/view/screen-choice.ts; a unit test keeps the two equal). A repeat
 * read during that time must not replace it.
 */
export const VERDICT_ON_SCREEN_MS = { admit: 3_000, exit: 3_000, refuse: 6_000, handout: 15_000 } as const;

/** The origin whose copies are keystroke echoes of `origin`'s reads. */
const ECHO_OF: Partial<Record<ScanOrigin, ScanOrigin>> = { window: 'hid-keyboard', 'hid-keyboard': 'window' };

/** A read that repeats an earlier one: what the caller is told about it. */
export interface RepeatRead<T> {
  /** The first read's answer. */
  first: Promise<T>;
  /** Reads of this scan so far, this one included (a read and its keystroke echo count once). */
  reads: number;
  sinceFirstMs: number;
  firstOrigin: ScanOrigin;
}

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
  /** Per origin, the answer given to each of its reads, in order: an echo gets its partner read's. */
  answersByOrigin: Map<ScanOrigin, Promise<T>[]>;
  /** Reads so far; keystroke echoes are not reads of their own. */
  reads: number;
}

export class RepeatReadFilter<T> {
  private readonly scans = new Map<string, Scan<T>>();

  constructor(private readonly options: RepeatReadOptions<T>) {}

  /**
   * A new scan runs `run`. A keystroke echo gets the answer of the read it
   * echoes. A repeat read gets what `repeat` makes of it (nothing runs).
   */
  read(origin: ScanOrigin, text: string, run: () => Promise<T>, repeat: (read: RepeatRead<T>) => Promise<T>): Promise<T> {
    const nowMs = this.options.now();
    this.forgetClosed(nowMs);
    const scan = this.scans.get(text);
    if (!scan) return this.start(origin, text, nowMs, run);

    const answers = scan.answersByOrigin.get(origin) ?? [];
    scan.answersByOrigin.set(origin, answers);
    const echoed = ECHO_OF[origin];
    const partner = echoed === undefined ? undefined : scan.answersByOrigin.get(echoed)?.[answers.length];
    if (partner !== undefined) {
      answers.push(partner);
      return partner;
    }
    scan.reads += 1;
    const answer = repeat({
      first: scan.answer,
      reads: scan.reads,
      sinceFirstMs: nowMs - scan.firstReadAtMs,
      firstOrigin: scan.firstOrigin,
    });
    answers.push(answer);
    return answer;
  }

  private start(origin: ScanOrigin, text: string, nowMs: number, run: () => Promise<T>): Promise<T> {
    const answer = run();
    const scan: Scan<T> = {
      firstOrigin: origin,
      firstReadAtMs: nowMs,
      closesAtMs: null,
      answer,
      answersByOrigin: new Map([[origin, [answer]]]),
      reads: 1,
    };
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
