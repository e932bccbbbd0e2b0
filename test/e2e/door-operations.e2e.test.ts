/**
 * Door operations at the kiosk, end to end (docs/kiosk.md "Door operations"):
 * a real issuer (the built `ticket-issuer` CLI, a child process, plain HTTP on
 * loopback), two real kiosk cores (an entry gate whose setup code gives it the
 * annul right, an exit gate) behind the web host with their API keys in the
 * real OS keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/door-operations.e2e.test.ts
 *
 * One evening at two gates: the steps build on each other, so they run in order.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import {
  closeKioskDoors,
  enterStaffPin,
  issuerCli,
  LOOPBACK as HOST,
  requireBuild,
  ROOT,
  scanInPage as scan,
  openKioskDoor,
  startIssuer,
  type KioskDoor,
  type RunningIssuer,
} from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';

const SHOTS = join(ROOT, 'test-results', 'e2e');
/** Waits for the page are generous: two shared cores, a browser, an issuer and the test itself. */
const WAIT_MS = 30_000;
const PIN = '1357';
/** A short repeat window, so a rescan after an annulment need not wait 3 s (docs/kiosk.md "Double reads"). */
const REPEAT_WINDOW_MS = 300;
/** The same code again after this is a new scan: the window, or the verdict's time on screen, whichever ends later. */
const RESCAN_AFTER_MS = 3_000 + 300;

type Door = KioskDoor;

interface Ticket {
  tid: string;
  qr: string;
}

let root: string;
let issuerDir: string;
let baseUrl: string;
let eid: string;
let issuer: RunningIssuer | null = null;
let browser: Browser | null = null;
const doors: Door[] = [];
const pageErrors: string[] = [];
let entry: Door;
let exit: Door;
/** When Cleo was admitted again after the annulment. */
let cleoReadmittedAt = 0;
const tickets: Record<'ada' | 'bob' | 'cleo' | 'dan', Ticket> = {} as never;

async function openDoor(name: string): Promise<Door> {
  const opened = await openKioskDoor(browser!, {
    dataDir: join(root, name),
    keyringService: `ticket-kiosk-e2e-door-ops-${name}-${process.pid}`,
    repeatReadWindowMs: REPEAT_WINDOW_MS,
    waitMs: WAIT_MS,
    onPageError: (error) => pageErrors.push(`${name}: ${error}`),
  });
  doors.push(opened);
  return opened;
}

async function enroll(door: Door, ...setupFlags: string[]): Promise<void> {
  const { setup_qr } = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid, ...setupFlags);
  await door.page.waitForSelector('#screen[data-screen="setup"]');
  await scan(door.page, setup_qr);
  await door.page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
}

async function ticketStatus(tid: string): Promise<string> {
  return (await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tid)).status;
}

const enterPin = enterStaffPin;

async function backToReady(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.waitForSelector('#screen[data-screen="ready"]');
}

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'door-ops-e2e-'));
  issuerDir = join(root, 'issuer');
  const port = await freePort();
  baseUrl = `http://${HOST}:${port}`;
  await issuerCli(issuerDir, 'init', '--base-url', baseUrl, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Two Gates', '--date', start, '--venue', 'Hall')).eid;
  // An offline policy of its own for one type: the staff's exposure view lists it with its cap.
  await issuerCli(issuerDir, 'event', 'offline-policy', '--event', eid, '--type', 'Day', '5');
  for (const holder of ['ada', 'bob', 'cleo', 'dan'] as const) {
    const issued = await issuerCli<{ tickets: Ticket[] }>(
      issuerDir,
      'ticket',
      'issue',
      '--event',
      eid,
      '--holder',
      holder[0]!.toUpperCase() + holder.slice(1),
      '--type',
      'Day',
    );
    tickets[holder] = issued.tickets[0]!;
  }
  issuer = await startIssuer(issuerDir, port);
  browser = workerBrowser;
  entry = await openDoor('entry');
  exit = await openDoor('exit');
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  for (const door of doors) await door.page.close().catch(() => undefined);
  await closeKioskDoors(doors);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

test.describe.serial('door operations at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('an exit gate shows EXIT for a ticket checked in at the entry, and refuses one that is not inside', async () => {
    await enroll(entry, '--can-annul');
    await enroll(exit, '--direction', 'exit');
    await exit.page.waitForSelector('[data-direction="exit"]');
    await entry.page.waitForSelector('[data-direction="entry"]');

    await scan(entry.page, tickets.ada.qr);
    await entry.page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
    await backToReady(entry.page);

    await scan(exit.page, tickets.ada.qr);
    await exit.page.waitForSelector('section[data-verdict="exit"][data-reason="exited"]');
    expect(await exit.page.textContent('section[data-verdict="exit"] [data-holder]')).toContain('Ada');
    // Neither an admission nor one staff could undo.
    expect(await exit.page.$('[data-action="annul-open"]')).toBeNull();
    await exit.page.screenshot({ path: join(SHOTS, 'door-ops-01-exit.png') });
    await backToReady(exit.page);

    await scan(exit.page, tickets.bob.qr);
    await exit.page.waitForSelector('section[data-verdict="refuse"][data-reason="not_inside"]');
    expect(await exit.page.textContent('[data-reason-text]')).toBe('Not checked in, or already out');
    await backToReady(exit.page);
    expect(await ticketStatus(tickets.bob.tid)).toBe('valid');
  });

  test('staff undo an ADMIT from the verdict screen (PIN, preset reason), and a rescan admits again', async () => {
    const { page, runtime } = entry;
    // A staff PIN, locked: the undo must ask for it.
    expect((await runtime.core.setStaffPin(PIN)).type).toBe('pin_set');
    await runtime.core.lockStaff();
    // The heartbeat after enrollment brought the annul right.
    await expect.poll(async () => (await runtime.core.getState()).door?.can_annul, { timeout: WAIT_MS }).toBe(true);

    await scan(page, tickets.cleo.qr);
    await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
    const admittedAt = Date.now();
    await page.click('section[data-verdict="admit"] [data-action="annul-open"]');
    await enterPin(page, PIN);
    await page.waitForSelector('[data-annul-dialog][data-annul-step="reason"]');
    // The ADMIT stays under the dialog however long staff take (it would have gone after 3 s).
    await page.waitForTimeout(3_500);
    expect(await page.$('#screen[data-screen="verdict"] section[data-verdict="admit"]')).not.toBeNull();
    await page.screenshot({ path: join(SHOTS, 'door-ops-02-annul-reason.png') });
    await page.click('[data-action="annul-reason"][data-reason-key="wrong_person"]');
    await page.waitForSelector('[data-annul-dialog][data-annul-step="result"] [data-annul-result="annulled"]');
    expect(await page.textContent('[data-annul-result]')).toContain('Check-in annulled');
    await page.screenshot({ path: join(SHOTS, 'door-ops-03-annulled.png') });
    expect(await ticketStatus(tickets.cleo.tid)).toBe('valid');
    await page.click('[data-action="annul-done"]');
    await page.waitForSelector('#screen[data-screen="ready"]');

    // The issuer keeps who and why.
    const history = await issuerCli<Array<{ tid: string; outcome: string }>>(
      issuerDir,
      'checkins',
      'export',
      '--event',
      eid,
      '--format',
      'json',
    );
    expect(JSON.stringify(history.filter((row) => row.tid === tickets.cleo.tid))).toContain('Wrong person');

    await page.waitForTimeout(Math.max(0, admittedAt + RESCAN_AFTER_MS - Date.now()));
    await scan(page, tickets.cleo.qr);
    await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
    cleoReadmittedAt = Date.now();
    expect(await ticketStatus(tickets.cleo.tid)).toBe('checked_in');
    await backToReady(page);
  });

  test('staff undo a check-in from the lookup screen with a typed reason; the lookup then shows it valid', async () => {
    const { page } = entry;
    await scan(page, tickets.dan.qr);
    await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"]');
    await backToReady(page);
    // Still unlocked from the step before (2 minutes since the last staff action).
    await page.keyboard.press('F2');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.fill('[data-lookup-input]', tickets.dan.tid);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-lookup-result][data-status="checked_in"] [data-action="annul-open"]');
    await page.click('[data-action="annul-open"]');
    await page.waitForSelector('[data-annul-dialog][data-annul-step="reason"]');
    await page.fill('[data-annul-reason-input]', 'Came back for the cloakroom ticket');
    await page.click('[data-action="annul-submit"]');
    await page.waitForSelector('[data-annul-result="annulled"]');
    await page.click('[data-action="annul-done"]');
    await page.waitForSelector('[data-lookup-result][data-status="valid"]');
    expect(await page.$('[data-action="annul-open"]')).toBeNull();
    expect(await ticketStatus(tickets.dan.tid)).toBe('valid');
    await backToReady(page);
  });

  test('the direction switch needs the staff PIN; the staff menu shows occupancy and offline exposure', async () => {
    const { page, runtime } = entry;
    await runtime.core.lockStaff();
    // Locked: the core refuses the call itself, whatever the page does.
    expect(await runtime.core.setDirection('exit')).toMatchObject({ type: 'staff_locked' });

    // The staff menu asks for the PIN; cancelled, nothing changes.
    await page.click('[data-action="open-staff"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"]');
    await page.click('[data-action="staff-cancel"]');
    await page.waitForSelector('[data-staff-dialog]', { state: 'hidden' });
    expect((await runtime.core.getState()).direction).toBe('entry');

    await page.click('[data-action="open-staff"]');
    await enterPin(page, PIN);
    const settings = '[data-staff-dialog][data-staff-mode="menu"] [data-door-settings]';
    await page.waitForSelector(`${settings} [data-gate-direction="entry"]`);
    // Occupancy from the heartbeat, and the exposure per type: the default and Day (capped at 5), none offline.
    await page.waitForSelector(`${settings} [data-occupancy]`);
    await page.waitForSelector(
      `${settings} [data-offline-exposure] li[data-ticket-type="Day"][data-cap="5"][data-last-hour="0"][data-unsynced="0"]`,
    );
    expect(await page.textContent(`${settings} li[data-ticket-type="Day"]`)).toBe(
      'Day: 0 admissions, at most 5 per hour · 0 not yet synced',
    );
    await page.screenshot({ path: join(SHOTS, 'door-ops-04-staff-menu.png') });

    await page.click(`${settings} [data-action="set-direction"][data-direction-to="exit"]`);
    await page.waitForSelector(`${settings} [data-gate-direction="exit"]`);
    expect((await runtime.core.getState()).direction).toBe('exit');
    await page.click('[data-action="staff-close"]');
    await page.waitForSelector('#screen[data-screen="ready"] [data-direction="exit"]');

    // Now an exit gate: Cleo, admitted again after the annulment, goes out here (once past the
    // double-read window of that admission: the same code within it is the same scan).
    await page.waitForTimeout(Math.max(0, cleoReadmittedAt + RESCAN_AFTER_MS - Date.now()));
    await scan(page, tickets.cleo.qr);
    await page.waitForSelector('section[data-verdict="exit"][data-reason="exited"]');
    await backToReady(page);
  });

  test('raised no error in the pages', () => {
    expect(pageErrors).toEqual([]);
  });
});
