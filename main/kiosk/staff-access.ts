/**
 * The staff PIN (docs/kiosk.md "Staff PIN"): who may run the kiosk's staff
 * functions, the calls the access table keeps from anyone at the door
 * (protocol/access.ts, docs/protocol.md "Roles and rights"). Scanning tickets
 * never needs it.
 *
 * - The PIN (4 to 8 digits) is kept as a scrypt hash with a random salt, in
 *   the local store's settings; never in plain text, never in a log line.
 * - 5 wrong PINs lock the staff menu for 30 s; every further wrong PIN locks
 *   it again for twice as long (60 s, 120 s, … at most an hour) until the
 *   right PIN is entered. The count and the lock are in the store, so a
 *   restart does not reset them.
 * - A right PIN unlocks for a short idle time (2 minutes since the last staff
 *   action); lock() ends it at once. The unlock is in memory: a restart locks.
 * - No PIN set: staff functions are open (the staff screens say so).
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { LocalStore, StoredStaffPin } from './store/local-store.js';
import type { SetStaffPinResult, StaffLocked, StaffState, StaffUnlockResult } from './kiosk-api.js';
import { roleAtKiosk } from './decide/access.js';
import { callLabel } from '../../protocol/access.js';

/**
 * scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB and about 50-100 ms per check
 * on a kiosk PC; OWASP's minimum for scrypt is N = 2^17 with r = 8 for
 * passwords, but a 4-8 digit PIN is protected by the lockout, not by the hash
 * alone: the hash keeps the PIN out of plain sight in kiosk.db). 16-byte salt,
 * 32-byte key.
 */
export const PIN_SCRYPT = { N: 2 ** 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;
export const PIN_PATTERN = /^[0-9]{4,8}$/;
export const MAX_WRONG_PINS = 5;
export const FIRST_LOCKOUT_MS = 30_000;
export const MAX_LOCKOUT_MS = 60 * 60_000;
export const DEFAULT_STAFF_IDLE_MS = 2 * 60_000;

export interface StaffAccessOptions {
  store: LocalStore;
  now: () => number;
  /** Never receives a PIN. */
  log: (line: string) => void;
  /** How long an unlock lasts since the last staff action. */
  idleMs?: number;
  /** Called when the unlock or the lockout ends by itself, so the screens are told. */
  onExpiry?: () => void;
}

export class StaffAccess {
  private readonly idleMs: number;
  /** Epoch ms the unlock ends, or null when locked. */
  private unlockedUntil: number | null = null;
  /** PIN checks run one at a time, so parallel tries cannot outrun the wrong-PIN count. */
  private checks: Promise<unknown> = Promise.resolve();
  private expiryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: StaffAccessOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_STAFF_IDLE_MS;
    this.scheduleExpiry();
  }

  pinSet(): boolean {
    return this.options.store.getStaffPin() !== null;
  }

  /** The setup code required a PIN and none is set: tickets wait until one is. */
  pinNeeded(): boolean {
    return this.options.store.staffPinRequired() && !this.pinSet();
  }

  state(canLeaveKioskMode: boolean): StaffState {
    const now = this.options.now();
    const pinSet = this.pinSet();
    const lockout = this.options.store.getStaffLockout();
    const unlocked = roleAtKiosk({ pinSet, unlocked: this.isUnlocked(now) }) !== 'anyone';
    return {
      pin_set: pinSet,
      pin_needed: this.options.store.staffPinRequired() && !pinSet,
      unlocked,
      unlocked_until: pinSet && unlocked && this.unlockedUntil !== null ? iso(this.unlockedUntil) : null,
      locked_until: lockout.locked_until !== null && lockout.locked_until > now ? iso(lockout.locked_until) : null,
      attempts_left: Math.max(0, MAX_WRONG_PINS - lockout.failed),
      can_leave_kiosk_mode: canLeaveKioskMode,
    };
  }

  /**
   * The guard every staff-only call goes through: null when staff functions
   * may run now (and the idle time starts again), else the staff_locked
   * answer. `action` names the call in the log.
   */
  check(action: string): StaffLocked | null {
    if (!this.pinSet()) return null;
    const now = this.options.now();
    if (this.isUnlocked(now)) {
      this.unlockedUntil = now + this.idleMs;
      this.scheduleExpiry();
      return null;
    }
    this.unlockedUntil = null;
    this.options.log(`Staff action refused: ${action} needs the staff PIN.`);
    const lockout = this.options.store.getStaffLockout();
    const lockedUntil = lockout.locked_until !== null && lockout.locked_until > now ? iso(lockout.locked_until) : null;
    return {
      type: 'staff_locked',
      locked_until: lockedUntil,
      message: lockedUntil ? `Staff menu locked after wrong PINs until ${lockedUntil}` : 'Enter the staff PIN first',
    };
  }

  unlock(pin: string): Promise<StaffUnlockResult> {
    const run = this.checks.then(() => this.unlockNow(pin));
    this.checks = run.catch(() => undefined);
    return run;
  }

  private async unlockNow(pin: string): Promise<StaffUnlockResult> {
    const stored = this.options.store.getStaffPin();
    if (!stored) return { type: 'no_pin' };
    const before = this.options.store.getStaffLockout();
    if (before.locked_until !== null && before.locked_until > this.options.now()) {
      return { type: 'locked_out', locked_until: iso(before.locked_until) };
    }
    const right = PIN_PATTERN.test(pin) && (await pinMatches(pin, stored));
    const now = this.options.now();
    if (right) {
      this.options.store.saveStaffLockout({ failed: 0, locked_until: null });
      this.unlockedUntil = now + this.idleMs;
      this.scheduleExpiry();
      this.options.log('Staff menu unlocked.');
      return { type: 'unlocked', unlocked_until: iso(this.unlockedUntil) };
    }
    const failed = before.failed + 1;
    const lockedUntil = failed >= MAX_WRONG_PINS ? now + lockoutMs(failed) : null;
    this.options.store.saveStaffLockout({ failed, locked_until: lockedUntil });
    this.unlockedUntil = null;
    if (lockedUntil !== null) {
      this.options.log(`Staff menu locked for ${Math.round((lockedUntil - now) / 1000)} s after ${failed} wrong PINs.`);
      this.scheduleExpiry();
    } else {
      this.options.log(`Wrong staff PIN (${failed} of ${MAX_WRONG_PINS}).`);
    }
    return {
      type: 'wrong_pin',
      attempts_left: Math.max(0, MAX_WRONG_PINS - failed),
      locked_until: lockedUntil === null ? null : iso(lockedUntil),
    };
  }

  /** Sets or replaces the PIN: open while none is set, staff only once one is. */
  async setPin(pin: string): Promise<SetStaffPinResult> {
    if (!PIN_PATTERN.test(pin)) return { type: 'invalid_pin', message: 'A staff PIN has 4 to 8 digits' };
    const locked = this.check(callLabel('setStaffPin'));
    if (locked) return locked;
    const hashed = await hashPin(pin, this.options.now());
    const replaced = this.pinSet();
    this.options.store.atomically(() => {
      this.options.store.saveStaffPin(hashed);
      this.options.store.saveStaffLockout({ failed: 0, locked_until: null });
    });
    // Whoever just set it is at the kiosk: staff functions stay open for them for the idle time.
    this.unlockedUntil = this.options.now() + this.idleMs;
    this.scheduleExpiry();
    this.options.log(replaced ? 'Staff PIN changed.' : 'Staff PIN set.');
    return { type: 'pin_set' };
  }

  lock(): void {
    if (this.unlockedUntil !== null) this.options.log('Staff menu locked.');
    this.unlockedUntil = null;
    this.scheduleExpiry();
  }

  close(): void {
    this.closed = true;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
  }

  private isUnlocked(now: number): boolean {
    return this.unlockedUntil !== null && now < this.unlockedUntil;
  }

  /** One timer for the next moment the state changes by itself (the unlock's or the lockout's end). */
  private scheduleExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    if (this.closed || !this.options.onExpiry) return;
    const now = this.options.now();
    const lockedUntil = this.options.store.getStaffLockout().locked_until;
    const ends = [this.unlockedUntil, lockedUntil].filter((at): at is number => at !== null && at > now);
    if (ends.length === 0) return;
    const delay = Math.min(...ends) - now + 50;
    this.expiryTimer = setTimeout(() => {
      this.expiryTimer = null;
      this.scheduleExpiry();
      this.options.onExpiry?.();
    }, delay);
    this.expiryTimer.unref();
  }
}

/** 30 s at the 5th wrong PIN, then twice as long for each one after it, at most an hour. */
export function lockoutMs(failed: number): number {
  return Math.min(MAX_LOCKOUT_MS, FIRST_LOCKOUT_MS * 2 ** Math.max(0, failed - MAX_WRONG_PINS));
}

export async function hashPin(pin: string, nowMs: number): Promise<StoredStaffPin> {
  const salt = randomBytes(PIN_SCRYPT.saltBytes);
  const { N, r, p } = PIN_SCRYPT;
  const hash = await derive(pin, salt, { N, r, p });
  return { algorithm: 'scrypt', N, r, p, salt: salt.toString('base64'), hash: hash.toString('base64'), set_at: iso(nowMs) };
}

async function pinMatches(pin: string, stored: StoredStaffPin): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await derive(pin, Buffer.from(stored.salt, 'base64'), { N: stored.N, r: stored.r, p: stored.p }, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function derive(
  pin: string,
  salt: Buffer,
  cost: { N: number; r: number; p: number },
  keyBytes: number = PIN_SCRYPT.keyBytes,
): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is exactly that at N = 2^15, r = 8.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(pin, salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
