/**
 * Failed authentications, counted per client address (docs/issuer.md "Failed authentications"). Two users:
 * - the admin API: 10 wrong admin tokens per 5 minutes per address; during the lockout EVERY token from that
 *   address is refused with 429, the right one too, so the documented 10 guesses per 5 minutes hold. On
 *   PostgreSQL the count is shared by every serving process (postgresFailureCounter), else a guesser would get
 *   10 per process behind a balancer;
 * - the scanner routes: 60 failed key checks (no key, an unknown, revoked or expired one) per minute per address;
 *   during the lockout a key this process has not seen pass is refused with 429 before the database is read,
 *   so a flood of wrong keys costs no lookups. A key seen valid in the last ten minutes still gets its normal
 *   check (a revocation still takes effect at once): one broken kiosk behind a venue's NAT does not lock out the
 *   kiosks beside it. Counted per process: it bounds each process's own lookups.
 */
export const ADMIN_FAILURE_LIMIT = 10;
export const ADMIN_FAILURE_WINDOW_MS = 5 * 60_000;
export const SCANNER_FAILURE_LIMIT = 60;
export const SCANNER_FAILURE_WINDOW_MS = 60_000;
/** Addresses remembered at most; beyond it the oldest windows are forgotten (memory stays bounded under a flood). */
const MAX_TRACKED = 10_000;

/**
 * One attempt, counted before its credential is checked. Check and count are ONE step (in memory: one synchronous
 * call; on PostgreSQL: one upsert), so a burst of parallel attempts from one address cannot all pass a check made
 * before any of them was counted: at most `limit` of a window's attempts get to the credential check
 * (docs/issuer.md "Failed authentications").
 */
export interface Attempt {
  /** Milliseconds until the key may try again: this attempt is refused (429). 0: it may go on, and counts. */
  wait: number;
  /** The credential passed: this attempt was not a failure, so it stops counting (a no-op when wait > 0). */
  passed(): Promise<void>;
}

/** Where failures are counted: this process's memory, or a table every serving process shares. */
export interface FailureCounter {
  attempt(key: string): Promise<Attempt>;
}

const NOTHING_TO_UNDO = (): Promise<void> => Promise.resolve();

/** Counts failures per key in fixed windows, in memory. Pure apart from its clock. */
export class FailureLimiter implements FailureCounter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly limit = ADMIN_FAILURE_LIMIT,
    private readonly windowMs = ADMIN_FAILURE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  attempt(key: string): Promise<Attempt> {
    const { wait, window } = this.attemptNow(key);
    return Promise.resolve({ wait, passed: wait > 0 ? NOTHING_TO_UNDO : () => Promise.resolve(this.passedNow(key, window)) });
  }

  /**
   * Synchronous: refused (`wait` > 0, not counted) while the key's window holds `limit` failures, else counted
   * at once. `window` names the window it was counted in, for passedNow.
   */
  attemptNow(key: string): { wait: number; window: number } {
    const wait = this.blockedForNow(key);
    if (wait > 0) return { wait, window: -1 };
    return { wait: 0, window: this.recordFailureNow(key) };
  }

  /** Takes back an attempt of `window` whose credential passed (a window since ended is left alone). */
  passedNow(key: string, window: number): void {
    const current = this.windows.get(key);
    if (current !== undefined && current.start === window && current.failures > 0) current.failures--;
  }

  blockedForNow(key: string): number {
    const window = this.windows.get(key);
    if (window === undefined) return 0;
    const left = window.start + this.windowMs - this.now();
    if (left <= 0) {
      this.windows.delete(key);
      return 0;
    }
    return window.failures >= this.limit ? left : 0;
  }

  /** Counts one failure; returns the start of the window it was counted in. */
  recordFailureNow(key: string): number {
    const now = this.now();
    const window = this.windows.get(key);
    if (window !== undefined && now - window.start < this.windowMs) {
      window.failures++;
      return window.start;
    }
    this.windows.delete(key);
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { start: now, failures: 1 });
    return now;
  }
}

/** Key hashes that passed a check within `ttlMs`, at most `max` of them (the oldest go first). */
export class RecentlyValidKeys {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  add(keyHash: string): void {
    this.seen.delete(keyHash);
    if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(keyHash, this.now());
  }

  has(keyHash: string): boolean {
    const at = this.seen.get(keyHash);
    if (at === undefined) return false;
    if (this.now() - at < this.ttlMs) return true;
    this.seen.delete(keyHash);
    return false;
  }
}
