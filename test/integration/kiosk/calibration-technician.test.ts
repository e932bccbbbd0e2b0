/**
 * Calibration only by a technician (docs/kiosk.md "Calibration"), through the
 * page's calls (main/host/kiosk-calls.ts) on a real kiosk.db against a
 * loopback issuer: a calibration code read at Ready with no technician
 * unlocked changes nothing and is audited; a translation matching no known
 * layout is kept only once confirmed; the Setup screen and an unlocked
 * technician calibrate as before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CALIBRATION_CODE } from '../../../protocol/index.js';
import { mangleForLayout } from '../../../protocol/keyboard-layouts.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { KioskState, ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';
import { auditRecords } from '../../support/kiosk-audit.js';

/** The code from the report: every character shifted by one, a "layout" no keyboard has. */
const ATTACK = 'tcal1.BCDEFGHIJKLMNOPQRSTUVWXYZAabcdefghijklmnopqrstuvwxyz0123456789-_.';
const PIN = '482916';

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
let dir: { dir: string; cleanup: () => void };
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  apiKeys = new MemoryApiKeys();
  dir = tempDir();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  dir.cleanup();
});

function openCore(): KioskCore {
  const core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys, autoDrain: false, onlineBudgetMs: 800 });
  cores.push(core);
  return core;
}

/** One page call, as the page makes it; the answer's value. */
async function page<T = unknown>(core: KioskCore, call: string, ...args: unknown[]): Promise<T> {
  const answer = await handleKioskCall(core, call, args);
  if (!answer.ok) throw new Error(`${call}: ${answer.error.code} ${answer.error.message}`);
  return answer.value as T;
}

const scan = (core: KioskCore, text: string): Promise<ScanResult> => page<ScanResult>(core, 'scan', text);
const state = (core: KioskCore): Promise<KioskState> => page<KioskState>(core, 'getState');

async function enrolledWithPin(core: KioskCore): Promise<void> {
  expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
  expect(await page(core, 'setStaffPin', PIN)).toEqual({ type: 'pin_set' });
  await page(core, 'lockStaff');
}

async function admits(core: KioskCore): Promise<void> {
  const { code, tid } = issuer.issueTicket();
  expect(await scan(core, code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', ticket: { tid } } });
}

describe('a calibration code at Ready, with a staff PIN set and staff locked', () => {
  it('the code from the report is ignored, changes nothing, is audited, and every later ticket is still admitted', async () => {
    const core = openCore();
    await enrolledWithPin(core);
    expect(await scan(core, ATTACK)).toEqual({ type: 'staff_code_ignored', message: 'staff code: ignored' });
    const after = await state(core);
    expect(after.calibration).toBeNull();
    expect(after.calibration_to_confirm).toBeNull();
    expect(core.readLog()[0]).toMatchObject({ kind: 'staff_code_ignored', origin: 'window' });
    expect(auditRecords(join(dir.dir, 'kiosk.db')).at(-1)).toMatchObject({
      kind: 'read',
      detail: { kind: 'staff_code_ignored', origin: 'window' },
    });
    await admits(core);
    await admits(core);
  });

  it('a real layout code is ignored too, on every input path, until a technician unlocks', async () => {
    const core = openCore();
    await enrolledWithPin(core);
    const told: Array<KioskState['staff_code_ignored']> = [];
    core.onStateChange((changed) => told.push(changed.staff_code_ignored));
    expect((await core.scanFrom('hid-pos', CALIBRATION_CODE)).type).toBe('staff_code_ignored');
    // A HID read answers no page call: the state tells the page, which says "staff code: ignored".
    expect(told.at(-1)).toMatchObject({ origin: 'hid-pos' });
    expect((await state(core)).staff_code_ignored).toMatchObject({ origin: 'hid-pos' });
    expect((await scan(core, mangleForLayout(CALIBRATION_CODE, 'de'))).type).toBe('staff_code_ignored');
    expect((await state(core)).calibration).toBeNull();
    // A technician (here the kiosk PIN, the technician's fallback) unlocks: the same code calibrates.
    expect(await page(core, 'unlockStaff', PIN)).toMatchObject({ type: 'unlocked' });
    expect(await scan(core, mangleForLayout(CALIBRATION_CODE, 'de'))).toMatchObject({ type: 'calibrated', diagnosis: { layout: 'de' } });
    expect((await state(core)).calibration?.translating).toEqual(['window']);
  });

  it('confirming a translation is a technician call: locked, it answers staff_locked', async () => {
    const core = openCore();
    await enrolledWithPin(core);
    expect(await page(core, 'calibrate', true)).toMatchObject({ type: 'staff_locked' });
  });
});

describe('a translation that matches no known layout', () => {
  it('on a kiosk without a PIN: a code read at Ready is still ignored, a real layout too; a technician badge lets it calibrate', async () => {
    const core = openCore();
    expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
    expect((await state(core)).staff.pin_set).toBe(false);
    // No PIN opens the staff menu to whoever touches the screen, but a code on a phone is not someone at the screen.
    expect(await scan(core, ATTACK)).toEqual({ type: 'staff_code_ignored', message: 'staff code: ignored' });
    expect(await scan(core, mangleForLayout(CALIBRATION_CODE, 'de'))).toEqual({
      type: 'staff_code_ignored',
      message: 'staff code: ignored',
    });
    expect((await state(core)).calibration).toBeNull();
    await admits(core);
    // A supervisor's badge is not enough.
    expect(await scan(core, issuer.staffBadge('supervisor'))).toMatchObject({ type: 'staff_unlocked' });
    expect((await scan(core, ATTACK)).type).toBe('staff_code_ignored');
    // A technician's badge is.
    expect(await scan(core, issuer.staffBadge('technician'))).toMatchObject({ type: 'staff_unlocked' });
    expect(await scan(core, mangleForLayout(CALIBRATION_CODE, 'de'))).toMatchObject({ type: 'calibrated', diagnosis: { layout: 'de' } });
    expect((await state(core)).calibration?.translating).toEqual(['window']);
  });

  it('on a kiosk without a PIN, once a technician badge is scanned: shown for confirmation, not used until kept', async () => {
    const core = openCore();
    expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
    expect(await scan(core, issuer.staffBadge('technician'))).toMatchObject({ type: 'staff_unlocked' });
    expect(await scan(core, ATTACK)).toMatchObject({ type: 'calibration_unconfirmed', diagnosis: { layout: 'unknown' } });
    const waiting = await state(core);
    expect(waiting.calibration).toBeNull();
    expect(waiting.calibration_to_confirm).toMatchObject({ layout: 'unknown', translation: 'learned' });
    // Not used meanwhile: tickets are read as they arrive (the ticket ends the badge's unlock).
    await admits(core);
    // Discarded: gone, nothing saved.
    const discarded = await page<KioskState>(core, 'calibrate', false);
    expect(discarded.calibration_to_confirm).toBeNull();
    expect(discarded.calibration).toBeNull();
    await admits(core);
    // Kept: now it is the path's translation, and Ready's standing notice has something to say. (Another
    // technician's badge: the same one again so soon would be a repeat read of the first.)
    expect(await scan(core, issuer.staffBadge('technician', { sid: 'stf_tia', name: 'Tia' }))).toMatchObject({ type: 'staff_unlocked' });
    await scan(core, ATTACK);
    const kept = await page<KioskState>(core, 'calibrate', true);
    expect(kept.calibration_to_confirm).toBeNull();
    expect(kept.calibration).toMatchObject({ diagnosis: { layout: 'unknown' }, translating: ['window'] });
    expect(core.readLog()[0]).toMatchObject({ kind: 'calibration', detail: expect.stringContaining('confirmed') });
  });

  it('on the Setup screen: a known layout calibrates at once, an unknown one waits for confirmation', async () => {
    const core = openCore();
    expect(await scan(core, mangleForLayout(CALIBRATION_CODE, 'fr'))).toMatchObject({ type: 'calibrated', diagnosis: { layout: 'fr' } });
    expect(await scan(core, ATTACK)).toMatchObject({ type: 'calibration_unconfirmed' });
    // The fr translation stays until the unknown one is kept.
    expect((await state(core)).calibration).toMatchObject({ diagnosis: { layout: 'fr' } });
  });
});

describe('a code typed through another keyboard layout (the page refuses it)', () => {
  const READ = { terminator: 'cr', prefixKeys: [], suffixKeys: [], units: 80, durationMs: 120 };

  it('is refused, recorded in the audit log with the layout, and changes nothing: the ticket is still admitted', async () => {
    const core = openCore();
    await enrolledWithPin(core);
    const { code } = issuer.issueTicket();
    const mangled = mangleForLayout(code, 'de');
    expect(await page(core, 'scan', mangled, { ...READ, foreignLayout: 'de' })).toEqual({ type: 'layout_mismatch', layout: 'de' });
    expect(auditRecords(join(dir.dir, 'kiosk.db')).at(-1)).toMatchObject({
      kind: 'verdict',
      detail: { kind: 'refuse', reason: 'layout_mismatch', keyboard_layout: 'de', decided_by: 'kiosk' },
    });
    expect((await state(core)).pending_scans).toBe(0);
    expect(await scan(core, code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
  });

  it('a layout the kiosk does not know is a bad call, not a record', async () => {
    const core = openCore();
    await enrolledWithPin(core);
    const before = auditRecords(join(dir.dir, 'kiosk.db')).length;
    const answer = await handleKioskCall(core, 'scan', ['x', { ...READ, foreignLayout: 'xx\u202e' }]);
    expect(answer).toMatchObject({ ok: false, error: { message: "The read's keyboard layout must be one of de, fr." } });
    expect(auditRecords(join(dir.dir, 'kiosk.db'))).toHaveLength(before);
  });
});
