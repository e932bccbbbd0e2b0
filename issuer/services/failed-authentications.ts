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

/** Where failures are counted: this process's memory, or a table every serving process shares. */
export interface FailureCounter {
  /** Milliseconds until `key` may try again; 0 when it may now. */
  blockedFor(key: string): Promise<number>;
  recordFailure(key: string): Promise<void>;
}

/** Counts failures per key in fixed windows, in memory. Pure apart from its clock. */
export class FailureLimiter implements FailureCounter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly limit = ADMIN_FAILURE_LIMIT,
    private readonly windowMs = ADMIN_FAILURE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  blockedFor(key: string): Promise<number> {
    return Promise.resolve(this.blockedForNow(key));
  }

  recordFailure(key: string): Promise<void> {
    this.recordFailureNow(key);
    return Promise.resolve();
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

  recordFailureNow(key: string): void {
    const now = this.now();
    const window = this.windows.get(key);
    if (window !== undefined && now - window.start < this.windowMs) {
      window.failures++;
      return;
    }
    this.windows.delete(key);
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { start: now, failures: 1 });
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
