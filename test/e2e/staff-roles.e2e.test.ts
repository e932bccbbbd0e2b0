/**
 * Staff at the door, end to end (docs/kiosk.md "Calibration", "Staff PIN"): a
 * real issuer (the built CLI), the real kiosk core behind the web host with
 * its API key in the real keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/staff-roles.e2e.test.ts
 *
 * One door (the steps build on each other): a calibration code scanned at
 * Ready while staff are locked is ignored and the door says so; a technician
 * who unlocked calibrates, confirms an unknown layout on screen, and Ready
 * keeps a standing notice while the translation is active; a supervisor's
 * staff badge unlocks its role, named on Ready, until the next ticket.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { enterStaffPin, lockStaffFromKiosk, scanInPage as scan, type KioskDoor } from '../support/door-harness.js';
import { createDoorScenario, E2E_SHOTS as SHOTS, type DoorScenario } from '../support/door-scenario.js';
import { encodeStaffBadge } from '../../protocol/staff-badge.js';
import { loadSigningKey, signEd25519Node } from '../../issuer/signing.js';

const PIN = '2468';
/** The code from the report: a "layout" no keyboard has, which would break every later ticket. */
const ATTACK = 'tcal1.BCDEFGHIJKLMNOPQRSTUVWXYZAabcdefghijklmnopqrstuvwxyz0123456789-_.';

let scenario: DoorScenario;
let door: KioskDoor;

/**
 * A staff badge signed with the issuer's active key, read from its data dir as the issuer's own
 * `staff badge issue` does (the kid is the discovery document's first key).
 */
async function staffBadge(role: 'steward' | 'supervisor' | 'technician', name: string): Promise<string> {
  const discovery = (await (await fetch(`${scenario.base}/.well-known/ticket-issuer.json`)).json()) as { keys: { kid: string }[] };
  const key = loadSigningKey(join(scenario.issuerDir, 'keys'), discovery.keys[0]!.kid);
  const now = Math.floor(Date.now() / 1000);
  return encodeStaffBadge(
    {
      v: 1,
      iss: scenario.base,
      kid: key.kid,
      sid: `stf_${name.toLowerCase()}`,
      name,
      role,
      eids: [scenario.eid],
      iat: now,
      nbf: now - 60,
      exp: now + 3600,
    },
    (message) => signEd25519Node(message, key.privateKey),
  );
}

async function issueTicket(holder: string): Promise<string> {
  const issued = await scenario.cli<{ tickets: { qr: string }[] }>('ticket', 'issue', '--event', scenario.eid, '--holder', holder);
  return issued.tickets[0]!.qr;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'staff-roles', eventName: 'Crew Night' });
  await scenario.startIssuer();
  door = await scenario.openDoor(browser, 'door');
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test.describe.serial('staff at the door (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a calibration code at Ready with staff locked: "staff code: ignored", nothing changes, tickets still admitted', async () => {
    const { page, runtime } = door;
    await page.waitForSelector('#screen[data-screen="setup"]');
    const setup = await scenario.cli<{ setup_qr: string }>('scanner', 'setup', '--event', scenario.eid);
    await scan(page, setup.setup_qr);
    await page.waitForSelector('#screen[data-screen="ready"]');
    // A PIN, set from the staff menu, then locked.
    await page.click('[data-action="open-staff"]');
    await page.click('[data-action="staff-set-pin"]');
    await page.fill('[data-staff-new-pin]', PIN);
    await page.fill('[data-staff-repeat-pin]', PIN);
    await page.click('[data-action="staff-save-pin"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    await page.click('[data-action="open-staff"]');
    await page.click('[data-staff-dialog] [data-action="staff-lock"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });

    await scan(page, ATTACK);
    const notice = await page.waitForSelector('#screen[data-screen="ready"] [data-notice]');
    expect(await notice.textContent()).toContain('staff code: ignored');
    expect(await page.$('[data-calibration-active]')).toBeNull();
    expect(await page.$('[data-calibration-to-confirm]')).toBeNull();
    await page.screenshot({ path: join(SHOTS, 'staff-roles-01-code-ignored.png') });
    expect((await runtime.core.getState()).calibration).toBeNull();

    await scan(page, await issueTicket('Grace Hopper'));
    const verdict = await page.waitForSelector('section[data-verdict]');
    expect([await verdict.getAttribute('data-verdict'), await verdict.getAttribute('data-reason')]).toEqual(['admit', 'valid']);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test('the same code read by a HID scanner (answering no page call) says "staff code: ignored" on screen too', async () => {
    const { page, runtime } = door;
    expect(await page.$('#screen[data-screen="ready"] [data-notice]')).toBeNull();
    // The host's HID path: the main process reads the scanner and hands the text to the core (thin boundary).
    expect((await runtime.core.scanFrom('hid-pos', ATTACK)).type).toBe('staff_code_ignored');
    const notice = await page.waitForSelector('#screen[data-screen="ready"] [data-notice]');
    expect(await notice.textContent()).toContain('staff code: ignored');
    expect((await runtime.core.getState()).calibration).toBeNull();
  });

  test('a technician unlocks, the unknown layout asks to be confirmed, and Ready shows a standing notice while it is active', async () => {
    const { page, runtime } = door;
    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, PIN);
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    await page.click('[data-action="staff-close"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });

    await scan(page, ATTACK);
    await page.waitForSelector('#screen[data-screen="ready"] [data-calibration-to-confirm]');
    expect((await runtime.core.getState()).calibration).toBeNull();
    await page.screenshot({ path: join(SHOTS, 'staff-roles-02-confirm-calibration.png') });
    await page.click('[data-action="keep-calibration"]');
    await page.waitForSelector('[data-calibration-to-confirm]', { state: 'hidden' });
    expect((await runtime.core.getState()).calibration?.translating).toEqual(['window']);
    await page.click('[data-action="close-diagnosis"]');
    const standing = await page.waitForSelector('#screen[data-screen="ready"] [data-calibration-active]');
    expect(await standing.textContent()).toContain('Scanner calibration is active');
    await page.screenshot({ path: join(SHOTS, 'staff-roles-03-translation-notice.png') });

    // Reset (a technician's call, still unlocked): the notice goes.
    expect(await runtime.core.resetCalibration()).toMatchObject({ calibration: null });
    await page.waitForSelector('[data-calibration-active]', { state: 'detached' });
    await page.click('[data-action="open-staff"]');
    await page.click('[data-staff-dialog] [data-action="staff-lock"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    expect(scenario.pageErrors).toEqual([]);
  });

  test('a supervisor badge unlocks a supervisor, named on Ready, until the next ticket, and is not checked in', async () => {
    const { page, runtime } = door;
    await scan(page, await staffBadge('supervisor', 'Kim'));
    const person = await page.waitForSelector('#screen[data-screen="ready"] [data-staff-person="stf_kim"]');
    expect(await person.getAttribute('data-staff-role')).toBe('supervisor');
    expect(await person.textContent()).toContain('Kim');
    expect(await page.textContent('[data-notice]')).toContain('Kim unlocked as supervisor');
    await page.screenshot({ path: join(SHOTS, 'staff-roles-04-badge-unlocked.png') });
    // A supervisor's function opens without a PIN: the lookup screen.
    await page.click('[data-action="open-lookup"]');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
    // The badge is not a ticket: nothing was checked in.
    expect((await runtime.core.getState()).last_verdicts).toHaveLength(1);

    // The next ticket ends the badge's unlock.
    await scan(page, await issueTicket('Alan Turing'));
    await page.waitForSelector('section[data-verdict="admit"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
    await page.waitForSelector('[data-staff-person]', { state: 'detached' });
    expect((await runtime.core.getState()).staff.role).toBe('anyone');
    expect(scenario.pageErrors).toEqual([]);
  });
  test("a steward with a PIN of their own is told in the kiosk's language that a function needs a supervisor, and a technician's PIN then runs it", async () => {
    const { page, runtime } = door;
    // A technician (the kiosk PIN) gives Ada a steward's PIN and sets the kiosk to German.
    expect(await runtime.core.unlockStaff(PIN)).toMatchObject({ type: 'unlocked' });
    expect(await runtime.core.setStaffPin('1357', { staff_id: 'stf_ada', name: 'Ada', role: 'steward' })).toEqual({ type: 'pin_set' });
    expect(await runtime.core.setLanguage('de', null)).toMatchObject({ type: 'language_set' });
    await lockStaffFromKiosk(door);

    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, '1357');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    await page.click('[data-action="verify-log"]');
    // Not a loop of retries, not English: the dialog asks for someone whose role may.
    const problem = await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"] [data-staff-problem]');
    expect(await problem.textContent()).toContain('Für Ada (Ordner) nicht erlaubt: Dafür ist die Rolle Aufsicht nötig.');
    await page.screenshot({ path: join(SHOTS, 'staff-roles-05-needs-supervisor-de.png') });
    expect(await page.$('[data-log-check]')).toBeNull();
    await enterStaffPin(page, PIN);
    await page.waitForSelector('[data-log-check="ok"]');
    // The answer is shown in the menu, which came back with it.
    await page.click('[data-staff-dialog][data-staff-mode="menu"] [data-action="staff-close"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    await runtime.core.setLanguage('en', null);
    expect(scenario.pageErrors).toEqual([]);
  });
  test("a technician adds a crew member's PIN on the staff screen, it unlocks that person, and once removed it no longer does", async () => {
    const { page, runtime } = door;
    await lockStaffFromKiosk(door);
    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, PIN);
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    await page.click('[data-action="crew-add"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="person"]');
    await page.fill('[data-crew-name]', 'Grace Steward');
    await page.fill('[data-crew-id]', 'stf_grace');
    await page.selectOption('[data-crew-role]', 'steward');
    await page.fill('[data-crew-pin]', '8642');
    await page.fill('[data-crew-repeat-pin]', '8642');
    await page.screenshot({ path: join(SHOTS, 'staff-roles-06-crew-pin.png') });
    await page.click('[data-action="staff-save-crew-pin"]');
    const member = await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"] [data-crew-member="stf_grace"]');
    expect(await member.textContent()).toContain('Grace Steward · steward · stf_grace');
    expect((await runtime.core.getState()).staff.people).toContainEqual({ staff_id: 'stf_grace', name: 'Grace Steward', role: 'steward' });
    await page.click('[data-staff-dialog] [data-action="staff-lock"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });

    // Grace's own PIN unlocks a steward.
    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, '8642');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    expect((await runtime.core.getState()).staff.person).toMatchObject({ staff_id: 'stf_grace', role: 'steward', via: 'pin' });
    // Removing a PIN is a technician's: Grace is asked for one, and the kiosk PIN removes it (asked twice).
    await page.click('[data-crew-member="stf_grace"] [data-action="crew-remove"]');
    await page.click('[data-crew-member="stf_grace"] [data-action="crew-remove-confirm"]');
    const problem = await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"] [data-staff-problem]');
    expect(await problem.textContent()).toContain('Not allowed for Grace Steward (steward)');
    await enterStaffPin(page, PIN);
    // The menu comes back, saying it is done.
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"] [data-staff-note]');
    expect(await page.textContent('[data-staff-dialog] [data-staff-note]')).toContain('PIN removed for Grace Steward.');
    expect(await page.$('[data-crew-member="stf_grace"]')).toBeNull();
    expect((await runtime.core.getState()).staff.people.map((person) => person.staff_id)).not.toContain('stf_grace');
    await page.click('[data-staff-dialog] [data-action="staff-close"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    await lockStaffFromKiosk(door);

    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, '8642');
    await page.waitForSelector('[data-staff-dialog] [data-staff-problem]');
    expect(await page.textContent('[data-staff-dialog] [data-staff-problem]')).toContain('Wrong PIN');
    expect((await runtime.core.getState()).staff.unlocked).toBe(false);
    await page.click('[data-staff-dialog] [data-action="staff-cancel"]');
    expect(scenario.pageErrors).toEqual([]);
  });
});
