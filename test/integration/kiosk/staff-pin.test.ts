/**
 * The staff PIN (docs/kiosk.md "Staff PIN") on a real kiosk.db against a
 * loopback issuer: the PIN is stored as a scrypt hash, wrong PINs lock the
 * staff menu with a doubling delay that survives a restart, an unlock ends
 * after the idle time or with lock(), staff-only calls answer staff_locked
 * without running, and scanning tickets never needs the PIN.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeSetupCode, encodeSetupCode, type KioskCall } from '../../../protocol/index.js';
import { KioskCore, type KioskCoreOptions } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { FIRST_LOCKOUT_MS, MAX_WRONG_PINS, PIN_SCRYPT } from '../../../main/kiosk/staff-access.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { handleIssuerCall } from '../../../main/electron/onsite-issuer-calls.js';
import { KioskModeGuard } from '../../../main/electron/kiosk-mode.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

const PIN = '482916';
const IDLE_MS = 120_000;

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
let dir: { dir: string; cleanup: () => void };
/** The kiosk's clock: real time plus whatever a test moves it on by. */
let clockOffsetMs = 0;
const cores: KioskCore[] = [];
const logs: string[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  apiKeys = new MemoryApiKeys();
  dir = tempDir();
  clockOffsetMs = 0;
  logs.length = 0;
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  dir.cleanup();
});

const dbPath = (): string => join(dir.dir, 'kiosk.db');

function openCore(options: Partial<KioskCoreOptions> = {}): KioskCore {
  const core = new KioskCore({
    dbPath: dbPath(),
    apiKeys,
    autoDrain: false,
    onlineBudgetMs: 800,
    staffIdleMs: IDLE_MS,
    now: () => Date.now() + clockOffsetMs,
    log: (line) => logs.push(line),
    ...options,
  });
  cores.push(core);
  return core;
}

async function enrolledCore(setup = issuer.setupCode()): Promise<KioskCore> {
  const core = openCore();
  expect((await core.scan(setup)).type).toBe('enrolled');
  return core;
}

async function restart(core: KioskCore): Promise<KioskCore> {
  await core.close();
  cores.splice(cores.indexOf(core), 1);
  return openCore();
}

function settings(): Record<string, string> {
  const db = new Database(dbPath(), { readonly: true });
  try {
    const rows = db.prepare('SELECT key, value FROM settings').all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  } finally {
    db.close();
  }
}

function kindOf(result: ScanResult): string {
  return result.type === 'verdict' ? result.verdict.kind : result.type;
}

describe('the staff PIN as stored', () => {
  it('is a scrypt hash with a random salt and its cost, never the PIN, in the file or the log', async () => {
    const core = await enrolledCore();
    expect(await core.setStaffPin(PIN)).toEqual({ type: 'pin_set' });
    const stored = JSON.parse(settings()['staff_pin']!) as Record<string, unknown>;
    expect(stored).toMatchObject({ algorithm: 'scrypt', N: PIN_SCRYPT.N, r: PIN_SCRYPT.r, p: PIN_SCRYPT.p });
    expect(Buffer.from(stored['salt'] as string, 'base64')).toHaveLength(PIN_SCRYPT.saltBytes);
    expect(Buffer.from(stored['hash'] as string, 'base64')).toHaveLength(PIN_SCRYPT.keyBytes);
    await core.close();
    for (const file of ['kiosk.db', 'kiosk.db-wal']) {
      const bytes = (() => {
        try {
          return readFileSync(join(dir.dir, file)).toString('latin1');
        } catch {
          return '';
        }
      })();
      expect(bytes.includes(PIN), file).toBe(false);
    }
    expect(logs.join('\n')).not.toContain(PIN);
    expect(logs).toContain('Staff PIN set.');

    // Another kiosk with the same PIN has its own salt, so its own hash.
    const other = tempDir();
    try {
      const second = new KioskCore({ dbPath: join(other.dir, 'kiosk.db'), apiKeys, autoDrain: false });
      await second.setStaffPin(PIN);
      await second.close();
      const db = new Database(join(other.dir, 'kiosk.db'), { readonly: true });
      const row = db.prepare(`SELECT value FROM settings WHERE key = 'staff_pin'`).get() as { value: string };
      db.close();
      const theirs = JSON.parse(row.value) as Record<string, unknown>;
      expect(theirs['salt']).not.toBe(stored['salt']);
      expect(theirs['hash']).not.toBe(stored['hash']);
    } finally {
      other.cleanup();
    }
  });

  it('takes 4 to 8 digits only', async () => {
    const core = openCore();
    for (const bad of ['123', '123456789', '12a4', ' 1234', '']) {
      expect(await core.setStaffPin(bad)).toMatchObject({ type: 'invalid_pin' });
    }
    expect((await core.getState()).staff.pin_set).toBe(false);
    expect(await core.setStaffPin('0000')).toEqual({ type: 'pin_set' });
    // The hosts refuse other shapes before the core sees them, without repeating them.
    const answer = await handleKioskCall(core, 'unlockStaff', ['12 34']);
    expect(answer).toEqual({ ok: false, error: { code: 'invalid_input', message: 'The staff PIN must be 4 to 8 digits.' } });
  });
});

describe('staff-only calls', () => {
  it('run while no PIN is set, and the state says none is set', async () => {
    const core = await enrolledCore();
    const state = await core.getState();
    expect(state.staff).toMatchObject({ pin_set: false, pin_needed: false, unlocked: true, attempts_left: MAX_WRONG_PINS });
    const { tid } = issuer.issueTicket();
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'status' });
  });

  it('answer staff_locked without running while locked, and run after the right PIN', async () => {
    let core = await enrolledCore();
    await core.setStaffPin(PIN);
    core = await restart(core); // an unlock lives in memory: a restart locks
    expect((await core.getState()).staff).toMatchObject({ pin_set: true, unlocked: false, unlocked_until: null });
    const { tid, code } = issuer.issueTicket();
    const lookupsBefore = issuer.requests.filter((request) => request.path.includes('/status')).length;

    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'staff_locked', locked_until: null });
    expect(await core.setLanguage('de', 'en')).toMatchObject({ type: 'staff_locked' });
    expect(await core.resetCalibration()).toMatchObject({ type: 'staff_locked' });
    expect(await core.leaveKioskMode()).toMatchObject({ type: 'staff_locked' });
    expect(await core.setStaffPin('1111')).toMatchObject({ type: 'staff_locked' });
    expect(issuer.requests.filter((request) => request.path.includes('/status')).length).toBe(lookupsBefore);
    expect((await core.getState()).language).toEqual({ primary: 'en', secondary: null });

    // Re-enrolling: the question is asked, the switch waits for the PIN.
    expect((await core.scan(issuer.setupCode({ gate_id: 'B' }))).type).toBe('confirm_re_enroll');
    expect(await core.confirmReEnroll()).toMatchObject({ type: 'staff_locked' });
    expect((await core.getState()).gate_id).toBeNull();

    // Scanning tickets never needs the PIN.
    expect(kindOf(await core.scan(code))).toBe('admit');

    // The web host's and Electron's call table answer the same, as a value.
    expect(await handleKioskCall(core, 'lookupStatus', [tid])).toMatchObject({ ok: true, value: { type: 'staff_locked' } });

    expect(await core.unlockStaff(PIN)).toMatchObject({ type: 'unlocked' });
    expect((await core.getState()).staff.unlocked).toBe(true);
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'status', status: { tid, status: 'checked_in' } });
    expect(await core.setLanguage('de', 'en')).toEqual({ type: 'language_set', language: { primary: 'de', secondary: 'en' } });
    expect(await core.confirmReEnroll()).toMatchObject({ type: 'enrolled' });
    expect((await core.getState()).re_enroll_pending).toBeNull();
    expect(await core.leaveKioskMode()).toMatchObject({ type: 'not_in_kiosk_mode' });
    expect(logs).toContain('Staff action refused: status lookup needs the staff PIN.');
    expect(logs.join('\n')).not.toContain(PIN);
  });

  it('stay open for the idle time since the last staff action, and Lock ends it at once', async () => {
    const core = await enrolledCore();
    await core.setStaffPin(PIN);
    await core.lockStaff();
    expect((await core.getState()).staff.unlocked).toBe(false);
    await core.unlockStaff(PIN);
    const { tid } = issuer.issueTicket();

    clockOffsetMs += IDLE_MS - 10_000; // a staff action just inside the idle time starts it again
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'status' });
    clockOffsetMs += IDLE_MS - 10_000;
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'status' });
    clockOffsetMs += IDLE_MS + 1;
    expect((await core.getState()).staff).toMatchObject({ unlocked: false, unlocked_until: null });
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'staff_locked' });

    await core.unlockStaff(PIN);
    expect(await core.lockStaff()).toMatchObject({ staff: { unlocked: false } });
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'staff_locked' });
  });

  it('pushes the state when an unlock runs out by itself', async () => {
    const core = openCore({ staffIdleMs: 300, now: Date.now });
    await core.setStaffPin(PIN);
    const pushes: boolean[] = [];
    core.onStateChange((state) => pushes.push(state.staff.unlocked));
    await core.unlockStaff(PIN);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pushes.at(-1)).toBe(false);
    expect((await core.getState()).staff.unlocked).toBe(false);
  });
});

describe('wrong PINs', () => {
  it('lock the staff menu after 5, for 30 s, then twice as long each time; a restart keeps the lock', async () => {
    let core = await enrolledCore();
    await core.setStaffPin(PIN);
    await core.lockStaff();
    for (let attempt = 1; attempt < MAX_WRONG_PINS; attempt++) {
      expect(await core.unlockStaff('0000')).toEqual({ type: 'wrong_pin', attempts_left: MAX_WRONG_PINS - attempt, locked_until: null });
    }
    const fifth = await core.unlockStaff('0000');
    expect(fifth).toMatchObject({ type: 'wrong_pin', attempts_left: 0 });
    const lockedUntil = Date.parse((fifth as { locked_until: string }).locked_until);
    expect(lockedUntil - (Date.now() + clockOffsetMs)).toBeGreaterThan(FIRST_LOCKOUT_MS - 2_000);
    expect(lockedUntil - (Date.now() + clockOffsetMs)).toBeLessThanOrEqual(FIRST_LOCKOUT_MS);

    // Locked: even the right PIN is not checked, and staff calls say until when.
    expect(await core.unlockStaff(PIN)).toMatchObject({ type: 'locked_out' });
    expect(await core.lookupStatus('T1')).toMatchObject({ type: 'staff_locked', locked_until: new Date(lockedUntil).toISOString() });

    // A restart does not reset it.
    core = await restart(core);
    expect((await core.getState()).staff).toMatchObject({ locked_until: new Date(lockedUntil).toISOString(), attempts_left: 0 });
    expect(await core.unlockStaff(PIN)).toMatchObject({ type: 'locked_out' });

    // After it, one more wrong PIN locks again for twice as long.
    clockOffsetMs += FIRST_LOCKOUT_MS + 1;
    expect((await core.getState()).staff.locked_until).toBeNull();
    const sixth = await core.unlockStaff('9999');
    const second = Date.parse((sixth as { locked_until: string }).locked_until) - (Date.now() + clockOffsetMs);
    expect(second).toBeGreaterThan(2 * FIRST_LOCKOUT_MS - 2_000);
    expect(second).toBeLessThanOrEqual(2 * FIRST_LOCKOUT_MS);
    core = await restart(core);
    clockOffsetMs += 2 * FIRST_LOCKOUT_MS + 1;
    const seventh = await core.unlockStaff('9999');
    const third = Date.parse((seventh as { locked_until: string }).locked_until) - (Date.now() + clockOffsetMs);
    expect(third).toBeGreaterThan(4 * FIRST_LOCKOUT_MS - 2_000);
    expect(logs.join('\n')).not.toContain('9999');

    // The right PIN after the lock unlocks and starts the count again.
    clockOffsetMs += 4 * FIRST_LOCKOUT_MS + 1;
    expect(await core.unlockStaff(PIN)).toMatchObject({ type: 'unlocked' });
    expect((await core.getState()).staff).toMatchObject({ attempts_left: MAX_WRONG_PINS, locked_until: null });
    expect(JSON.parse(settings()['staff_lockout']!)).toEqual({ failed: 0, locked_until: null });
  });

  it('never let parallel tries outrun the count', async () => {
    const core = await enrolledCore();
    await core.setStaffPin(PIN);
    await core.lockStaff();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => core.unlockStaff(`111${i}`)));
    expect(answers.filter((answer) => answer.type === 'wrong_pin')).toHaveLength(MAX_WRONG_PINS);
    expect(answers.filter((answer) => answer.type === 'locked_out')).toHaveLength(3);
    expect(await core.unlockStaff(PIN)).toMatchObject({ type: 'locked_out' });
  });

  it('do not stop the door: tickets are scanned while the staff menu is locked out', async () => {
    const core = await enrolledCore();
    await core.setStaffPin(PIN);
    await core.lockStaff();
    for (let i = 0; i < MAX_WRONG_PINS; i++) await core.unlockStaff('0000');
    expect((await core.getState()).staff.locked_until).not.toBeNull();
    expect(kindOf(await core.scan(issuer.issueTicket().code))).toBe('admit');
  });
});

describe('a setup code with pin_required', () => {
  it('is decoded with the flag, and makes the kiosk ask for a PIN before it scans tickets', async () => {
    const setup = issuer.setupCode({ pin_required: true });
    expect(decodeSetupCode(setup).pin_required).toBe(true);
    expect(decodeSetupCode(issuer.setupCode()).pin_required).toBeUndefined();
    expect(() => decodeSetupCode(encodeSetupCode({ ...decodeSetupCode(setup), pin_required: 'yes' as unknown as true }))).toThrow();

    let core = await enrolledCore(setup);
    expect((await core.getState()).staff).toMatchObject({ pin_set: false, pin_needed: true });
    const { code } = issuer.issueTicket();
    expect(await core.scan(code)).toMatchObject({ type: 'staff_pin_needed' });
    // A restart does not skip it.
    core = await restart(core);
    expect(await core.scan(code)).toMatchObject({ type: 'staff_pin_needed' });
    expect(issuer.requests.filter((request) => request.path.includes('check-in'))).toHaveLength(0);

    expect(await core.setStaffPin(PIN)).toEqual({ type: 'pin_set' });
    expect((await core.getState()).staff).toMatchObject({ pin_set: true, pin_needed: false });
    clockOffsetMs += 10_000; // past the repeat-read window of the refused scan (repeat-reads.ts)
    expect(kindOf(await core.scan(code))).toBe('admit');
  });
});

describe('the hosts', () => {
  it('guard the on-site issuer panel and leaving kiosk mode with the same PIN', async () => {
    const core = await enrolledCore();
    await core.setStaffPin(PIN);
    await core.lockStaff();
    const started: string[] = [];
    const onsite = {
      status: async () => ({ running: false }) as never,
      init: async () => ({}) as never,
      start: async () => void started.push('start') as never,
      stop: async () => ({}) as never,
      resetAdminToken: async () => ({}) as never,
    };
    const host = { issuer: onsite, staff: (call: KioskCall) => core.requireStaff(call) };
    expect(await handleIssuerCall(host, 'start', [])).toMatchObject({ ok: false, error: { code: 'staff_locked' } });
    expect(await handleIssuerCall(host, 'status', [])).toMatchObject({ ok: true });
    expect(started).toEqual([]);

    const window = {
      kiosk: true,
      fullScreen: true,
      setKiosk: (flag: boolean) => void (window.kiosk = flag),
      setFullScreen: (flag: boolean) => void (window.fullScreen = flag),
      isDestroyed: () => false,
    };
    const guard = new KioskModeGuard(core, window, true);
    expect((await core.getState()).staff.can_leave_kiosk_mode).toBe(true);
    expect(guard.mayClose()).toBe(false);
    expect(await handleKioskCall(core, 'leaveKioskMode', [])).toMatchObject({ ok: true, value: { type: 'staff_locked' } });
    expect(window.kiosk).toBe(true);

    await core.unlockStaff(PIN);
    expect(guard.mayClose()).toBe(true);
    expect(await handleIssuerCall(host, 'start', [])).toMatchObject({ ok: true });
    expect(started).toEqual(['start']);
    expect(await core.leaveKioskMode()).toEqual({ type: 'left_kiosk_mode' });
    expect(window).toMatchObject({ kiosk: false, fullScreen: false });
    expect((await core.getState()).staff.can_leave_kiosk_mode).toBe(false);

    // Out of kiosk mode, or when the app quits by itself, closing is not a staff question.
    await core.lockStaff();
    expect(guard.mayClose()).toBe(true);
    const second = new KioskModeGuard(core, window, true);
    expect(second.mayClose()).toBe(false);
    second.quit();
    expect(second.mayClose()).toBe(true);
  });

  it('validate the language', async () => {
    const core = openCore();
    expect(await handleKioskCall(core, 'setLanguage', ['xx', null])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await handleKioskCall(core, 'setLanguage', ['fr'])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await handleKioskCall(core, 'setLanguage', ['fr', 'fr'])).toMatchObject({
      ok: true,
      value: { type: 'language_set', language: { primary: 'fr', secondary: null } },
    });
    const again = await restart(core);
    expect((await again.getState()).language).toEqual({ primary: 'fr', secondary: null });
  });
});
