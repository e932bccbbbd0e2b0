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
 *
 * Who unlocked is known (docs/kiosk.md "Staff PIN", "Staff badges"): the kiosk
 * PIN is the technician's fallback; a crew member's own PIN unlocks their
 * role, and so does a staff badge (checked by the caller, unlockBadge). What
 * the person's role may do is the access table's (protocol/access.ts). Each
 * unlock, staff action and refusal is in the audit log with the person.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { LocalStore, StoredStaffPerson, StoredStaffPin } from './store/local-store.js';
import type {
  RemoveStaffPinResult,
  SetStaffPinResult,
  StaffLocked,
  StaffPerson,
  StaffPersonRequest,
  StaffState,
  StaffUnlockResult,
} from './kiosk-api.js';
import { lowestRoleFor, roleAtKiosk } from './decide/access.js';
import { callLabel, mayCall, type KioskCall, type KioskRole, type StaffRole } from '../../protocol/access.js';
import type { StaffBadgePayload } from '../../protocol/staff-badge.js';

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

/** The kiosk PIN's person: the technician's fallback (docs/kiosk.md "Staff PIN"). */
export const KIOSK_PIN_PERSON: StaffPerson = { staff_id: 'kiosk-pin', name: 'Kiosk PIN', role: 'technician', via: 'kiosk_pin' };
const STAFF_ID_PATTERN = /^[0-9A-Za-z_.-]{1,80}$/;

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

interface Unlock {
  person: StaffPerson;
  /** Epoch ms the unlock ends unless a staff action extends it. */
  until: number;
  /** The badge's code when a badge unlocked (sent with an annul as `staff_badge`); never shown. */
  badgeCode: string | null;
}

export class StaffAccess {
  private readonly idleMs: number;
  /** Who is unlocked, until when; null when locked. */
  private unlocked: Unlock | null = null;
  /** PIN checks run one at a time, so parallel tries cannot outrun the wrong-PIN count. */
  private checks: Promise<unknown> = Promise.resolve();
  private expiryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: StaffAccessOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_STAFF_IDLE_MS;
    this.scheduleExpiry();
  }

  /** A PIN is set: the kiosk PIN or a crew member's own. */
  pinSet(): boolean {
    return this.options.store.getStaffPin() !== null || this.options.store.getStaffPeople().length > 0;
  }

  /** The setup code required a PIN and none is set: tickets wait until one is. */
  pinNeeded(): boolean {
    return this.options.store.staffPinRequired() && !this.pinSet();
  }

  /** Who is in front of the kiosk now (decide/access.ts roleAtKiosk). */
  role(): KioskRole {
    const current = this.current();
    return roleAtKiosk({ pinSet: this.pinSet(), unlockedAs: current?.person.role ?? null });
  }

  /** The role of whoever unlocked the kiosk now (a PIN or a badge), or null: no fallback for a kiosk without a PIN. */
  unlockedRole(): StaffRole | null {
    return this.current()?.person.role ?? null;
  }

  /** The person unlocked now, or null. */
  person(): StaffPerson | null {
    return this.current()?.person ?? null;
  }

  /** The badge code that unlocked now, for a request that carries it (`staff_badge`); null otherwise. */
  badgeCode(): string | null {
    return this.current()?.badgeCode ?? null;
  }

  /** The role of the staff badge that unlocked now, or null: the issuer can check a badge's role, not a PIN's. */
  badgeRole(): StaffRole | null {
    const current = this.current();
    return current?.badgeCode ? current.person.role : null;
  }

  state(canLeaveKioskMode: boolean): StaffState {
    const now = this.options.now();
    const pinSet = this.pinSet();
    const lockout = this.options.store.getStaffLockout();
    const current = this.current();
    const role = this.role();
    return {
      pin_set: pinSet,
      pin_needed: this.options.store.staffPinRequired() && !pinSet,
      unlocked: role !== 'anyone',
      unlocked_until: current ? iso(current.until) : null,
      locked_until: lockout.locked_until !== null && lockout.locked_until > now ? iso(lockout.locked_until) : null,
      attempts_left: Math.max(0, MAX_WRONG_PINS - lockout.failed),
      can_leave_kiosk_mode: canLeaveKioskMode,
      role,
      person: current?.person ?? null,
      people: this.options.store.getStaffPeople().map(({ staff_id, name, role: personRole }) => ({ staff_id, name, role: personRole })),
    };
  }

  /**
   * The guard every staff call goes through: null when the role in front of
   * the kiosk may make `call` now (and the idle time starts again), else the
   * staff_locked answer. Both are in the audit log with the person.
   */
  check(call: KioskCall): StaffLocked | null {
    const now = this.options.now();
    const role = this.role();
    const person = this.person();
    if (mayCall(role, call)) {
      if (this.unlocked && person) {
        this.unlocked = { ...this.unlocked, until: now + this.idleMs };
        this.scheduleExpiry();
      }
      this.audit({ event: 'staff_action', call });
      return null;
    }
    const needed = lowestRoleFor(call);
    // No one unlocked: the PIN is what is missing (the line staff and IT have always seen); else the role.
    this.options.log(
      person
        ? `Staff action refused: ${callLabel(call)} needs a ${needed ?? 'technician'} (${person.name} is ${person.role}).`
        : `Staff action refused: ${callLabel(call)} needs the staff PIN.`,
    );
    this.audit({ event: 'staff_refused', call, needs: needed });
    const lockout = this.options.store.getStaffLockout();
    const lockedUntil = lockout.locked_until !== null && lockout.locked_until > now ? iso(lockout.locked_until) : null;
    return {
      type: 'staff_locked',
      locked_until: lockedUntil,
      call,
      needs: needed ?? null,
      unlocked_as: person ? { name: person.name, role: person.role } : null,
      message: lockedUntil
        ? `Staff menu locked after wrong PINs until ${lockedUntil}`
        : person
          ? `${callLabel(call)} needs a ${needed ?? 'technician'}: ${person.name} is ${person.role}`
          : `Enter the staff PIN first${needed ? ` (a ${needed} or above)` : ''}`,
    };
  }

  unlock(pin: string): Promise<StaffUnlockResult> {
    const run = this.checks.then(() => this.unlockNow(pin));
    this.checks = run.catch(() => undefined);
    return run;
  }

  /**
   * docs/kiosk.md "Staff badges": a badge the caller checked (signature, event, time, not revoked) unlocks
   * its holder's role for the idle time, or until the next ticket scan (endAtTicket).
   */
  unlockBadge(badge: StaffBadgePayload, code: string): { person: StaffPerson; until: string } {
    const person: StaffPerson = { staff_id: badge.sid, name: badge.name, role: badge.role, via: 'badge' };
    this.unlocked = { person, until: this.options.now() + this.idleMs, badgeCode: code };
    this.scheduleExpiry();
    this.options.log(`Staff badge: ${person.name} (${person.role}, ${person.staff_id}) unlocked the staff functions.`);
    this.audit({ event: 'unlocked' });
    return { person, until: iso(this.unlocked.until) };
  }

  /** docs/kiosk.md "Staff badges": a badge's unlock ends with the next ticket scan. */
  endBadgeAtTicket(): void {
    if (this.current()?.person.via !== 'badge') return;
    this.options.log('Staff badge unlock ended: a ticket was scanned.');
    this.audit({ event: 'locked', why: 'ticket scanned' });
    this.unlocked = null;
    this.scheduleExpiry();
  }

  /** Who is in front of the kiosk, as an override names them (docs/kiosk.md "Attention notes"): null ids without a PIN. */
  actor(): { staff_id: string | null; name: string | null; role: KioskRole; via: StaffPerson['via'] | null } {
    const person = this.person();
    return person
      ? { staff_id: person.staff_id, name: person.name, role: person.role, via: person.via }
      : { staff_id: null, name: null, role: this.role(), via: null };
  }

  /** A staff action's own record (an override: docs/kiosk.md "Attention notes"), in the audit log with who made it. */
  record(detail: Record<string, unknown>): void {
    this.audit(detail);
  }

  /** A staff badge refused (the caller's check): logged and audited with why, never the code. */
  refuseBadge(check: string, message: string, badge?: StaffBadgePayload): void {
    this.options.log(`Staff badge refused: ${message}.`);
    this.audit({ event: 'badge_refused', check, badge_staff_id: badge?.sid ?? null, badge_role: badge?.role ?? null });
  }

  private async unlockNow(pin: string): Promise<StaffUnlockResult> {
    if (!this.pinSet()) return { type: 'no_pin' };
    const before = this.options.store.getStaffLockout();
    if (before.locked_until !== null && before.locked_until > this.options.now()) {
      return { type: 'locked_out', locked_until: iso(before.locked_until) };
    }
    const person = PIN_PATTERN.test(pin) ? await this.personOfPin(pin) : null;
    const now = this.options.now();
    if (person) {
      this.options.store.saveStaffLockout({ failed: 0, locked_until: null });
      this.unlocked = { person, until: now + this.idleMs, badgeCode: null };
      this.scheduleExpiry();
      this.options.log(`Staff menu unlocked by ${person.name} (${person.role}).`);
      this.audit({ event: 'unlocked' });
      return { type: 'unlocked', unlocked_until: iso(this.unlocked.until), person };
    }
    const failed = before.failed + 1;
    const lockedUntil = failed >= MAX_WRONG_PINS ? now + lockoutMs(failed) : null;
    this.options.store.saveStaffLockout({ failed, locked_until: lockedUntil });
    this.unlocked = null;
    this.audit({ event: 'wrong_pin', failed });
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

  /** Whose PIN `pin` is: the kiosk PIN (the technician's fallback) or a crew member's own; null for none. */
  private async personOfPin(pin: string): Promise<StaffPerson | null> {
    const kioskPin = this.options.store.getStaffPin();
    if (kioskPin && (await pinMatches(pin, kioskPin))) return KIOSK_PIN_PERSON;
    for (const stored of this.options.store.getStaffPeople()) {
      if (await pinMatches(pin, stored.pin)) return { staff_id: stored.staff_id, name: stored.name, role: stored.role, via: 'pin' };
    }
    return null;
  }

  /**
   * Sets or replaces the kiosk PIN (no `person`), or a crew member's own PIN (docs/kiosk.md "Staff PIN"):
   * open while no PIN is set, a technician's call once one is. No two people share a PIN.
   */
  async setPin(pin: string, request?: StaffPersonRequest): Promise<SetStaffPinResult> {
    if (!PIN_PATTERN.test(pin)) return { type: 'invalid_pin', message: 'A staff PIN has 4 to 8 digits' };
    if (request && (!STAFF_ID_PATTERN.test(request.staff_id) || request.name.trim().length === 0 || request.name.length > 80)) {
      return { type: 'invalid_pin', message: 'A staff id has 1 to 80 letters, digits, . _ or -, and a name 1 to 80 characters' };
    }
    const locked = this.check('setStaffPin');
    if (locked) return locked;
    const owner = await this.personOfPin(pin);
    if (owner && owner.staff_id !== (request?.staff_id ?? KIOSK_PIN_PERSON.staff_id)) {
      return { type: 'invalid_pin', message: 'That PIN is taken: choose another' };
    }
    const hashed = await hashPin(pin, this.options.now());
    const wasSet = this.pinSet();
    const { store } = this.options;
    store.atomically(() => {
      if (request) {
        const person: StoredStaffPerson = { staff_id: request.staff_id, name: request.name.trim(), role: request.role, pin: hashed };
        store.saveStaffPeople([...store.getStaffPeople().filter((p) => p.staff_id !== request.staff_id), person]);
      } else {
        store.saveStaffPin(hashed);
      }
      store.saveStaffLockout({ failed: 0, locked_until: null });
    });
    // Whoever just set the first PIN is at the kiosk, as a technician, for the idle time.
    if (!wasSet) this.unlocked = { person: KIOSK_PIN_PERSON, until: this.options.now() + this.idleMs, badgeCode: null };
    else if (this.unlocked) this.unlocked = { ...this.unlocked, until: this.options.now() + this.idleMs };
    this.scheduleExpiry();
    this.audit({ event: 'pin_set', for_staff_id: request?.staff_id ?? KIOSK_PIN_PERSON.staff_id, for_role: request?.role ?? 'technician' });
    this.options.log(
      request ? `Staff PIN set for ${request.name.trim()} (${request.role}).` : wasSet ? 'Staff PIN changed.' : 'Staff PIN set.',
    );
    return { type: 'pin_set' };
  }

  /** Removes a crew member's own PIN (docs/kiosk.md "Staff PIN"): a technician's call like setStaffPin; audited by staff id only. */
  removePin(staffId: string): RemoveStaffPinResult {
    const locked = this.check('removeStaffPin');
    if (locked) return locked;
    const { store } = this.options;
    const people = store.getStaffPeople();
    const gone = people.find((p) => p.staff_id === staffId);
    if (!gone) return { type: 'no_such_person', staff_id: staffId };
    store.saveStaffPeople(people.filter((p) => p.staff_id !== staffId));
    this.audit({ event: 'pin_removed', for_staff_id: staffId, for_role: gone.role });
    this.options.log(`Staff PIN removed for ${gone.name} (${gone.role}).`);
    return { type: 'pin_removed', staff_id: staffId };
  }

  lock(): void {
    if (this.unlocked !== null) {
      this.options.log('Staff menu locked.');
      this.audit({ event: 'locked', why: 'lock' });
    }
    this.unlocked = null;
    this.scheduleExpiry();
  }

  close(): void {
    this.closed = true;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
  }

  private current(): Unlock | null {
    return this.unlocked !== null && this.options.now() < this.unlocked.until ? this.unlocked : null;
  }

  /** docs/kiosk.md "The kiosk's audit log": a staff record, with who was at the kiosk (never a PIN or a code). */
  private audit(detail: Record<string, unknown>): void {
    const person = this.person();
    const by = person
      ? { staff_id: person.staff_id, name: person.name, role: person.role, via: person.via }
      : { staff_id: null, role: this.role() };
    this.options.store.auditStaff({ ...detail, ...by });
  }

  /** One timer for the next moment the state changes by itself (the unlock's or the lockout's end). */
  private scheduleExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    if (this.closed || !this.options.onExpiry) return;
    const now = this.options.now();
    const lockedUntil = this.options.store.getStaffLockout().locked_until;
    const ends = [this.unlocked?.until ?? null, lockedUntil].filter((at): at is number => at !== null && at > now);
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
