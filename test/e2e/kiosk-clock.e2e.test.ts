/**
 * The kiosk's clock end to end (docs/kiosk.md "The kiosk's clock"): a real issuer (the built CLI), the
 * real kiosk core behind the web host with its clock 2 hours ahead, the built screens in real Chromium.
 * Ready warns staff, the staff settings show the offset, and offline a ticket is judged by the issuer's
 * time (valid for another hour by it, expired an hour ago by the kiosk's own clock).
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/kiosk-clock.e2e.test.ts
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  closeKioskDoors,
  issuerCli,
  LOOPBACK as HOST,
  openKioskDoor,
  requireBuild,
  ROOT,
  scanInPage as scan,
  startIssuer,
  type KioskDoor,
  type RunningIssuer,
} from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';

const SHOTS = join(ROOT, 'test-results', 'e2e');
const WAIT_MS = 30_000;
const HOUR_MS = 3_600_000;

let root: string;
let issuerDir: string;
let eid: string;
let issuer: RunningIssuer | null = null;
const doors: KioskDoor[] = [];
const pageErrors: string[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'kiosk-clock-e2e-'));
  issuerDir = join(root, 'issuer');
  const port = await freePort();
  await issuerCli(issuerDir, 'init', '--base-url', `http://${HOST}:${port}`, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * HOUR_MS).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Clock Night', '--date', start, '--venue', 'Hall')).eid;
  issuer = await startIssuer(issuerDir, port);
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  for (const door of doors) await door.page.close().catch(() => undefined);
  await closeKioskDoors(doors);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a kiosk whose clock is 2 hours ahead warns on Ready, shows the offset, and judges expiry offline by the issuer’s time', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const door = await openKioskDoor(browser, {
    dataDir: join(root, 'door'),
    keyringService: `ticket-kiosk-e2e-clock-${process.pid}`,
    waitMs: WAIT_MS,
    onPageError: (error) => pageErrors.push(error),
    core: { now: () => Date.now() + 2 * HOUR_MS },
  });
  doors.push(door);
  const { page } = door;
  await page.waitForSelector('#screen[data-screen="setup"]');
  const setup = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid);
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
  const issued = await issuerCli<{ tickets: { qr: string }[] }>(
    issuerDir,
    'ticket',
    'issue',
    '--event',
    eid,
    '--holder',
    'Grace Hopper',
    '--expires',
    expires,
  );
  await issuer!.stop();
  issuer = null;
  await scan(page, issued.tickets[0]!.qr);
  await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"] [data-offline]');
  await page.screenshot({ path: join(SHOTS, 'clock-02-offline-admit.png') });
  expect(pageErrors).toEqual([]);
});
