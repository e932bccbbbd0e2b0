/**
 * When the kiosk's offline queue is sent (docs/protocol.md "Idempotency and
 * offline scans"): the background timer, the backoff between passes, and the holds
 * that keep it waiting. One pass at a time; what a pass does is
 * queue-drain.ts, and what its outcome means for the door's state stays in
 * kiosk-core.ts.
 *
 * A hold (the issuer's Retry-After on a 429, or the rest of a rate-limit
 * window kept for live scans: queue-drain.ts liveScanReserve) moves every
 * later pass to after it. A live scan answered meanwhile must not restart the
 * drain early, or every scan at the door would spend another round of drain
 * requests from the door's own budget.
 */
import { backoffDelayMs, type BackoffOptions } from '../decide/backoff.js';
import type { DrainReport } from './queue-drain.js';

export interface DrainScheduleOptions {
  /** One drain pass; never run twice at once. */
  pass: () => Promise<DrainReport | null>;
  /** False: no timers, only explicit runNow() calls (tests drive the drain themselves). */
  auto: boolean;
  backoff: BackoffOptions;
  now: () => number;
  random: () => number;
}

export class DrainSchedule {
  private running: Promise<DrainReport | null> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** No background pass before this time (see the header). */
  private heldUntil = 0;
  private closed = false;

  constructor(private readonly options: DrainScheduleOptions) {}

  /** One pass now (also what the timer runs). Single-flight: a call during a pass gets that pass. */
  runNow(): Promise<DrainReport | null> {
    if (this.running) return this.running;
    this.running = this.options.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Scans are waiting and the issuer answers (a new run, the issuer back, a re-enrollment): a pass as soon as holds allow. */
  soon(): void {
    this.at(this.options.now());
  }

  /**
   * When a scan that just joined the queue is first retried: the first
   * backoff step, or the issuer's Retry-After when that is later.
   */
  firstRetryAt(retryAfterMs?: number): number {
    const now = this.options.now();
    const due = now + backoffDelayMs(0, this.options.random, this.options.backoff);
    return retryAfterMs === undefined ? due : Math.max(due, now + retryAfterMs);
  }

  /** A pass at `at` unless one is already scheduled: a scan joining the queue never delays the one planned. */
  atUnlessScheduled(at: number): void {
    if (!this.timer) this.at(at);
  }

  /** A scan joined the queue without the door trying the issuer: its first retry, unless a pass is already scheduled. */
  firstRetryUnlessScheduled(): void {
    if (!this.timer) this.at(this.firstRetryAt());
  }

  /** The issuer asked to wait (or the drain leaves it room) until `at`: no pass before then. */
  holdUntil(at: number): void {
    this.heldUntil = Math.max(this.heldUntil, at);
  }

  /** Something failed that may come back (the keyring, the disk): try again after the longest backoff. */
  later(): void {
    this.at(this.options.now() + this.options.backoff.maxMs);
  }

  /** After a pass: keep its hold and come back when it says (never, when the queue is empty). */
  afterPass(report: DrainReport): void {
    if ((report.stop === 'rate_limited' || report.stop === 'leaving_room') && report.retryAt !== null) this.holdUntil(report.retryAt);
    this.at(report.retryAt);
  }

  /** Stops the timer; resolves when the pass in flight (if any) has ended. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** The next pass at `requested` (or the end of a hold), replacing any scheduled one; null: none. */
  private at(requested: number | null): void {
    if (!this.options.auto || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (requested === null) return;
    const at = Math.max(requested, this.heldUntil);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // A failing pass (e.g. a disk error) must not crash the door; try again later.
        this.runNow().catch(() => this.later());
      },
      Math.max(0, at - this.options.now()),
    );
    this.timer.unref();
  }
}
