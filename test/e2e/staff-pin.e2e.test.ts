/**
 * The staff PIN end to end (docs/kiosk.md "Staff PIN"): a real issuer (the
 * built CLI), the real kiosk core behind the web host with its API key in the
 * real keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/staff-pin.e2e.test.ts
 *
 * One door through an evening (the steps build on each other), then a second
 * kiosk enrolled with a setup code that requires a PIN.
 */
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { enterStaffPin, lockStaffFromKiosk, scanInPage as scan, type KioskDoor } from '../support/door-harness.js';
import { createDoorScenario, E2E_SHOTS as SHOTS, type DoorScenario } from '../support/door-scenario.js';
import { FIRST_LOCKOUT_MS, MAX_WRONG_PINS } from '../../main/kiosk/staff-access.js';

const PIN = '2468';

type Door = KioskDoor;

let scenario: DoorScenario;
let browser: Browser;
let door: Door;

async function issueTicket(holder: string): Promise<string> {
  const issued = await scenario.cli<{ tickets: { qr: string }[] }>(
    'ticket',
    'issue',
    '--event',
    scenario.eid,
    '--holder',
    holder,
    '--type',
    'Standard',
  );
  return issued.tickets[0]!.qr;
}

async function setupCode(...extra: string[]): Promise<string> {
  return (await scenario.cli<{ setup_qr: string }>('scanner', 'setup', '--event', scenario.eid, ...extra)).setup_qr;
}

const openDoor = (name: string): Promise<Door> => scenario.openDoor(browser, name);

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'staff-pin', eventName: 'Staff Night' });
  await scenario.startIssuer();
  browser = workerBrowser;
  door = await openDoor('door-a');
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

const enterPin = enterStaffPin;

async function setPin(page: Page, pin: string): Promise<void> {
  await page.waitForSelector('[data-staff-dialog][data-staff-mode="set"]');
  await page.fill('[data-staff-new-pin]', pin);
  await page.fill('[data-staff-repeat-pin]', pin);
  await page.click('[data-action="staff-save-pin"]');
  await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
}

test.describe.serial('the staff PIN, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('an enrolled kiosk without a PIN says so on the staff screens, and its staff functions are open', async () => {
    const { page } = door;
    await page.waitForSelector('#screen[data-screen="setup"]');
    // The Setup screen's staff area: no PIN yet.
    await page.waitForSelector('#screen[data-screen="setup"] [data-staff-area] [data-staff-no-pin]');
    await scan(page, await setupCode());
    await page.waitForSelector('#screen[data-screen="ready"]');

    // The staff menu opens without a PIN, and says none is set.
    await page.click('[data-action="open-staff"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"] [data-staff-no-pin]');
    expect(await page.textContent('[data-staff-no-pin]')).toContain('No staff PIN set');
    await page.screenshot({ path: join(SHOTS, 'staff-01-menu-no-pin.png') });
    // Status lookup too, with the notice on its screen.
    await page.click('[data-action="staff-lookup"]');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.waitForSelector('[data-staff-corner] [data-staff-no-pin]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test('sets a PIN from the staff menu; Lock ends the unlock', async () => {
    const { page, runtime } = door;
    await page.click('[data-action="open-staff"]');
    await page.click('[data-action="staff-set-pin"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="set"]');
    // Two different PINs are refused on the page, before anything is sent.
    await page.fill('[data-staff-new-pin]', PIN);
    await page.fill('[data-staff-repeat-pin]', '1357');
    await page.click('[data-action="staff-save-pin"]');
    await page.waitForSelector('[data-staff-problem]');
    await setPin(page, PIN);
    expect((await runtime.core.getState()).staff).toMatchObject({ pin_set: true, unlocked: true });

    await page.click('[data-action="open-staff"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    expect(await page.$('[data-staff-no-pin]')).toBeNull();
    await page.click('[data-staff-dialog] [data-action="staff-lock"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    expect((await runtime.core.getState()).staff.unlocked).toBe(false);
  });

  test('a locked lookup asks for the PIN first; Cancel leaves Ready as it was', async () => {
    const { page } = door;
    await page.click('[data-action="open-lookup"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"]');
    expect(await page.getAttribute('#screen', 'data-screen')).toBe('ready');
    await page.screenshot({ path: join(SHOTS, 'staff-02-pin.png') });
    await page.click('[data-action="staff-cancel"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    await page.keyboard.press('F2');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    expect(await page.getAttribute('#screen', 'data-screen')).toBe('ready');
  });

  test('5 wrong PINs lock the staff menu with a visible countdown; tickets still scan', async () => {
    const { page } = door;
    await page.click('[data-action="open-lookup"]');
    for (let attempt = 1; attempt < MAX_WRONG_PINS; attempt++) {
      await enterPin(page, '0000');
      const left = MAX_WRONG_PINS - attempt;
      // "1 try left", not "1 tries left" (docs/kiosk.md "Counted texts").
      await page.waitForSelector(`[data-staff-problem]:has-text("${left} ${left === 1 ? 'try' : 'tries'} left")`);
    }
    await enterPin(page, '0000');
    const lockout = await page.waitForSelector('[data-staff-lockout]');
    const first = Number(await lockout.getAttribute('data-seconds'));
    expect(first).toBeGreaterThan(FIRST_LOCKOUT_MS / 1000 - 5);
    expect(first).toBeLessThanOrEqual(FIRST_LOCKOUT_MS / 1000);
    expect(await lockout.textContent()).toMatch(/try again in 0:[0-3]\d/);
    expect(await page.isDisabled('[data-staff-pin-input]')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'staff-03-locked-out.png') });
    // The countdown runs.
    await expect
      .poll(async () => Number(await page.getAttribute('[data-staff-lockout]', 'data-seconds')), { timeout: 5_000 })
      .toBeLessThan(first);

    // The door is not the staff menu: a ticket is admitted, and the verdict takes the screen.
    await scan(page, await issueTicket('Ada Lovelace'));
    const verdict = await page.waitForSelector('section[data-verdict]');
    expect([await verdict.getAttribute('data-verdict'), await verdict.getAttribute('data-reason')]).toEqual(['admit', 'valid']);
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test('the right PIN, once the lock has run out, opens the lookup', async () => {
    const { page, runtime } = door;
    await page.click('[data-action="open-lookup"]');
    // Still locked (the lock is kept by the core, not the page): the countdown shows again.
    await page.waitForSelector('[data-staff-lockout]');
    const lockedUntil = (await runtime.core.getState()).staff.locked_until;
    expect(lockedUntil).not.toBeNull();
    await page.waitForSelector('[data-staff-lockout]', { state: 'detached', timeout: FIRST_LOCKOUT_MS + 10_000 });
    await enterPin(page, PIN);
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    // Lock is on the lookup screen too.
    await page.click('[data-staff-corner] [data-action="staff-lock"]');
    expect((await runtime.core.getState()).staff.unlocked).toBe(false);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test('changing the language needs the PIN at the moment of the change', async () => {
    const { page, runtime } = door;
    await page.click('[data-action="open-staff"]');
    await enterPin(page, PIN);
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"]');
    await page.selectOption('[data-language-primary]', 'de');
    await page.selectOption('[data-language-secondary]', 'en');
    // The unlock runs out (as after 2 idle minutes) while the menu is open.
    await lockStaffFromKiosk(door);
    await page.click('[data-action="save-language"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"]');
    expect((await runtime.core.getState()).language).toEqual({ primary: 'en', secondary: null });
    await enterPin(page, PIN);
    await page.waitForSelector('html[lang^="de"]', { state: 'attached' });
    expect((await runtime.core.getState()).language).toEqual({ primary: 'de', secondary: 'en' });
    await page.screenshot({ path: join(SHOTS, 'staff-04-language.png') });
  });

  test('a setup code that requires a PIN: the kiosk asks for one right after enrollment and scans no ticket before', async () => {
    const second = await openDoor('door-b');
    const { page, runtime } = second;
    await page.waitForSelector('#screen[data-screen="setup"]');
    await scan(page, await setupCode('--require-pin'));
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="set"] [data-staff-pin-needed]');
    expect(await page.$('[data-staff-dialog] [data-action="staff-cancel"]')).toBeNull();
    await page.screenshot({ path: join(SHOTS, 'staff-05-pin-required.png') });
    await page.keyboard.press('Escape');
    expect(await page.isVisible('[data-staff-dialog][data-staff-mode="set"]')).toBe(true);

    // A ticket now makes no check-in and no verdict.
    const ticket = await issueTicket('Grace Hopper');
    await scan(page, ticket);
    await page.waitForSelector('[data-notice], [data-setup-message]');
    expect(await page.$('section[data-verdict]')).toBeNull();
    expect((await runtime.core.getState()).last_verdicts).toEqual([]);

    await setPin(page, '97531');
    expect((await runtime.core.getState()).staff).toMatchObject({ pin_set: true, pin_needed: false });
    await scan(page, await issueTicket('Alan Turing'));
    await page.waitForSelector('section[data-verdict="admit"]');
    expect(scenario.pageErrors).toEqual([]);
  });
});
