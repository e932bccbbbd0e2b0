/**
 * The kiosk's clock end to end (docs/kiosk.md "The kiosk's clock"): a real issuer (the built CLI), the
 * real kiosk core behind the web host with its clock 2 hours ahead, the built screens in real Chromium.
 * Ready warns staff, the staff settings show the offset, and offline a ticket is judged by the issuer's
 * time (valid for another hour by it, expired an hour ago by the kiosk's own clock).
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/kiosk-clock.e2e.test.ts
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { scanInPage as scan } from '../support/door-harness.js';
import { createDoorScenario, E2E_SHOTS as SHOTS, type DoorScenario } from '../support/door-scenario.js';

const HOUR_MS = 3_600_000;

let scenario: DoorScenario;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'kiosk-clock', eventName: 'Clock Night' });
  await scenario.startIssuer();
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test('a kiosk whose clock is 2 hours ahead warns on Ready, shows the offset, and judges expiry offline by the issuer’s time', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const door = await scenario.openDoor(browser, 'door', { core: { now: () => Date.now() + 2 * HOUR_MS } });
  const { page } = door;
  await page.waitForSelector('#screen[data-screen="setup"]');
  const setup = await scenario.cli<{ setup_qr: string }>('scanner', 'setup', '--event', scenario.eid);
  await scan(page, setup.setup_qr);
  await page.waitForSelector('#screen[data-screen="ready"]');

  const warning = await page.waitForSelector('#screen[data-screen="ready"] [data-clock="off"]');
  expect(await warning.textContent()).toContain("This kiosk's clock is 2 h 00 min ahead of the issuer's");
  await page.screenshot({ path: join(SHOTS, 'clock-01-ready-warning.png') });

  // The staff settings (no PIN on this kiosk): the gate block shows the offset.
  await page.click('[data-action="open-staff"]');
  const line = await page.waitForSelector('[data-staff-dialog] [data-clock]');
  expect(await line.textContent()).toMatch(/^Clock: 2 h 00 min ahead of the issuer's \(measured \d\d:\d\d\)$/);
  await page.click('[data-action="staff-close"]');
  await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });

  // Valid for one more hour by the issuer's clock, expired an hour ago by the kiosk's: offline, it is admitted.
  const expires = new Date(Date.now() + HOUR_MS).toISOString();
  const issued = await scenario.cli<{ tickets: { qr: string }[] }>(
    'ticket',
    'issue',
    '--event',
    scenario.eid,
    '--holder',
    'Grace Hopper',
    '--expires',
    expires,
  );
  await scenario.stopIssuer();
  await scan(page, issued.tickets[0]!.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"] [data-offline]');
  await page.screenshot({ path: join(SHOTS, 'clock-02-offline-admit.png') });
  expect(scenario.pageErrors).toEqual([]);
});
