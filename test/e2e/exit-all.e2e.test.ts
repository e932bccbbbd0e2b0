/**
 * Check-out at a set time end to end (docs/issuer.md "Check-out at a set time", docs/kiosk.md "Check-out at a set
 * time"): a real issuer (the built CLI, `event set --exit-all-at` a moment half a minute ahead), the real kiosk core
 * behind the web host with its API key in the real OS keyring, the built screens in real Chromium. On a re-entry
 * event two people come in; a rescan is "already used" and the staff menu says 2 inside. After the moment the
 * staff menu says 0 inside, one of them is admitted again online, and the other offline (the kiosk applies the
 * setting from its last heartbeat).
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/exit-all.e2e.test.ts
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { scanInPage as scan } from '../support/door-harness.js';
import {
  createDoorScenario,
  E2E_SHOTS as SHOTS,
  SHORT_REPEAT_WINDOW_MS,
  type DoorScenario,
  type IssuedTicket as Ticket,
} from '../support/door-scenario.js';

/** Far enough ahead for the admissions and the rescan before it on a loaded machine. */
const MOMENT_AHEAD_MS = 30_000;
/** The same code again after this is a new scan: the window, or the verdict's time on screen, whichever ends later. */
const RESCAN_AFTER_MS = 3_000 + SHORT_REPEAT_WINDOW_MS;

let scenario: DoorScenario;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'exit-all', eventName: 'Night Club', eventOptions: ['--entry', 'reentry'] });
  await scenario.startIssuer();
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

const issue = (holder: string): Promise<Ticket> => scenario.issue(holder);

async function backToReady(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.waitForSelector('#screen[data-screen="ready"]');
}

/** The staff menu's occupancy line (no staff PIN on this kiosk: the menu opens at once). */
async function occupancyText(page: Page): Promise<string | null> {
  await page.click('[data-action="open-staff"]');
  const line = await page.waitForSelector('[data-staff-dialog] [data-door-settings] [data-occupancy]');
  const text = await line.textContent();
  return text;
}

async function closeStaff(page: Page): Promise<void> {
  await page.click('[data-action="staff-close"]');
  await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
}

test('after the set time the staff menu shows nobody inside and a re-entry scan admits again, online and offline', async ({ browser }) => {
  test.setTimeout(150_000);
  const door = await scenario.openDoor(browser, 'door', { repeatReadWindowMs: SHORT_REPEAT_WINDOW_MS });
  const { page, runtime } = door;
  await scenario.enroll(door);

  const moment = new Date(Date.now() + MOMENT_AHEAD_MS);
  await scenario.cli('event', 'set', '--event', scenario.eid, '--exit-all-at', moment.toISOString());
  await runtime.core.heartbeat(); // the kiosk learns the setting (docs/kiosk.md "Check-out at a set time")
  const ada = await issue('Ada Lovelace');
  const bob = await issue('Bob Marley');

  // Before the moment: both in, a rescan is already used, and the staff menu counts two inside.
  await scan(page, ada.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
  const adaAdmittedAt = Date.now();
  await backToReady(page);
  await scan(page, bob.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
  await backToReady(page);
  await page.waitForTimeout(Math.max(0, adaAdmittedAt + RESCAN_AFTER_MS - Date.now()));
  await scan(page, ada.qr);
  await page.waitForSelector('section[data-verdict="refuse"][data-reason="already_used"]');
  await backToReady(page);
  expect(Date.now()).toBeLessThan(moment.getTime()); // else the machine was too slow for this test's timing
  await runtime.core.heartbeat();
  expect(await occupancyText(page)).toBe('Inside: 2');
  await closeStaff(page);

  // The moment passes: the next heartbeat brings the issuer's count after the automatic exits.
  await page.waitForTimeout(Math.max(0, moment.getTime() - Date.now()) + 500);
  await runtime.core.heartbeat();
  expect(await occupancyText(page)).toBe('Inside: 0');
  await page.screenshot({ path: join(SHOTS, 'exit-all-01-nobody-inside.png') });
  await closeStaff(page);
  // Recorded as exits with reason auto (docs/protocol.md "Check-out at a set time").
  const db = new Database(join(scenario.issuerDir, 'issuer.db'), { readonly: true, fileMustExist: true });
  const exits = db.prepare("SELECT tid, reason FROM admission_events WHERE action = 'exit' ORDER BY tid").all();
  db.close();
  expect(exits).toEqual([ada, bob].map((t) => ({ tid: t.tid, reason: 'auto' })).sort((a, b) => a.tid.localeCompare(b.tid)));

  // Online: Ada is admitted again.
  await scan(page, ada.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
  expect(await page.$('section[data-verdict="admit"] [data-offline]')).toBeNull();
  await backToReady(page);

  // Offline: Bob too, by the setting of the last heartbeat.
  await scenario.stopIssuer();
  await scan(page, bob.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"] [data-offline]');
  await page.screenshot({ path: join(SHOTS, 'exit-all-02-offline-readmit.png') });
  expect(scenario.pageErrors).toEqual([]);
});
