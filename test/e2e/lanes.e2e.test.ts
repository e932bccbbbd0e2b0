/**
 * Several scanners on one kiosk, end to end (docs/kiosk.md "Several scanners",
 * docs/kiosk-screens.md "Lanes"): the built issuer as a child process, the
 * kiosk runtime with two HID-POS scanners behind the web host, the built
 * screens in Chromium. Staff map the lanes in the staff settings by scanning
 * the calibration code with each scanner; then an entry on lane 1 and an exit
 * on lane 2 are shown side by side, each in its lane's half.
 *
 * The scanners' USB reports go through the runtime's node-hid boundary (the
 * host's test hook `hid`, test/support/unit/fake-node-hid.ts): there is no USB
 * here. Everything else is real: keyring, SQLite, HTTP, Chromium.
 *   scripts/with-keyring.sh npx playwright test test/e2e/lanes.e2e.test.ts
 * With UPDATE_SCREENSHOTS=1 the split screen is copied to docs/screenshots/lanes-entry-exit.png.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startKioskRuntime, type KioskRuntime } from '../../main/host/kiosk-runtime.js';
import { KeychainApiKeyStore } from '../../main/kiosk/store/api-key-store.js';
import type { HidDeviceInfo } from '../../main/kiosk/scanner/node-hid-boundary.js';
import { startWebHost, type WebHost } from '../../main/web-host/server.js';
import { CALIBRATION_CODE } from '../../protocol/index.js';
import {
  issuerCli,
  LOOPBACK as HOST,
  openKioskPage,
  RENDERER_DIR,
  requireBuild,
  ROOT,
  scanInPage,
  startIssuer,
  type RunningIssuer,
} from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';
import { FakeNodeHid, posScanner, waitFor } from '../support/unit/fake-node-hid.js';
import { standardHidPosReports } from '../support/unit/hid-pos-reports.js';

const SHOTS = join(ROOT, 'test-results', 'e2e');
const WAIT_MS = 30_000;
const KEYRING_SERVICE = `ticket-kiosk-e2e-lanes-${process.pid}`;
const REPEAT_WINDOW_MS = 300;
/** The same ticket again after its ADMIT left the screen (3 s) and the repeat window: a new scan. */
const RESCAN_AFTER_MS = 3_000 + REPEAT_WINDOW_MS + 200;

const northScanner: HidDeviceInfo = { ...posScanner, path: '/dev/hidraw3', serialNumber: 'NORTH-1' };
const southScanner: HidDeviceInfo = { ...posScanner, path: '/dev/hidraw4', serialNumber: 'SOUTH-2' };

interface Ticket {
  tid: string;
  qr: string;
}

let root: string;
let baseUrl: string;
let issuer: RunningIssuer | null = null;
let runtime: KioskRuntime | null = null;
let host: WebHost | null = null;
let page: Page;
const hid = new FakeNodeHid();
const pageErrors: string[] = [];
const tickets: Record<'ada' | 'bob' | 'cleo', Ticket> = {} as never;

function scanWith(scanner: HidDeviceInfo, text: string): void {
  const handle = hid.opened.filter((each) => each.path === scanner.path && !each.closed).at(-1)!;
  for (const report of standardHidPosReports(text)) handle.sendReport(report);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'lanes-e2e-'));
  const issuerDir = join(root, 'issuer');
  const port = await freePort();
  baseUrl = `http://${HOST}:${port}`;
  await issuerCli(issuerDir, 'init', '--base-url', baseUrl, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  const { eid } = await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Two Lanes', '--date', start, '--venue', 'Hall');
  for (const holder of ['ada', 'bob', 'cleo'] as const) {
    const name = holder[0]!.toUpperCase() + holder.slice(1);
    tickets[holder] = (await issuerCli<{ tickets: Ticket[] }>(issuerDir, 'ticket', 'issue', '--event', eid, '--holder', name)).tickets[0]!;
  }
  issuer = await startIssuer(issuerDir, port);
  hid.plug(northScanner);
  hid.plug(southScanner);
  runtime = await startKioskRuntime({
    dataDir: join(root, 'kiosk'),
    keyringService: KEYRING_SERVICE,
    hidScanners: true,
    hid: hid.api(),
    repeatReadWindowMs: REPEAT_WINDOW_MS,
    log: () => undefined,
  });
  host = await startWebHost({ core: runtime.core, host: HOST, port: 0, rendererDir: RENDERER_DIR, log: () => undefined });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await openKioskPage(page, host);
  await waitFor('both scanners to be read', () => runtime?.scanner?.connected.length === 2, WAIT_MS);
  const { setup_qr } = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid);
  await page.waitForSelector('#screen[data-screen="setup"]');
  await scanInPage(page, setup_qr);
  await page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
});

test.afterAll(async () => {
  await page?.close().catch(() => undefined);
  await host?.close().catch(() => undefined);
  await runtime?.close().catch(() => undefined);
  await new KeychainApiKeyStore({ serviceName: KEYRING_SERVICE }).secrets.deleteAll().catch(() => undefined);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

test.describe.serial('two lanes on one kiosk', () => {
  test('staff map the lanes by scanning the calibration code with each scanner', async () => {
    await page.click('[data-action="open-staff"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"] [data-lane-settings]');
    await page.fill('[data-lane-label-input="1"]', 'North entry');
    await page.selectOption('[data-lane-direction-input="1"]', 'entry');
    await page.fill('[data-lane-label-input="2"]', 'South exit');
    await page.selectOption('[data-lane-direction-input="2"]', 'exit');
    await page.click('[data-action="lanes-map"]');
    await page.waitForSelector('[data-lane-mapping-step="1"]');
    expect(await page.textContent('[data-lane-mapping-step]')).toContain('North entry');
    scanWith(northScanner, `${CALIBRATION_CODE}\r`);
    await page.waitForSelector('[data-lane-mapping-step="2"]');
    scanWith(southScanner, `${CALIBRATION_CODE}\r`);
    await page.waitForSelector('[data-lane-settings] [data-lane-row="lane-2"][data-lane-connected="true"]');
    await page.screenshot({ path: join(SHOTS, 'lanes-01-mapped.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="lanes"] [data-lane="lane-1"][data-lane-state="idle"]');
    expect(await page.textContent('[data-lane="lane-1"] [data-lane-label]')).toBe('North entry');
    expect(await page.getAttribute('[data-lane="lane-2"] [data-lane-direction]', 'data-lane-direction')).toBe('exit');
  });

  test('an entry on lane 1 and an exit on lane 2 are shown side by side, each with its own timing', async () => {
    // Bob goes in at the north lane first.
    scanWith(northScanner, tickets.bob.qr);
    await page.waitForSelector('[data-lane="lane-1"][data-lane-state="admit"]');
    expect(await page.getAttribute('[data-lane="lane-2"]', 'data-lane-state')).toBe('idle');
    await page.waitForTimeout(RESCAN_AFTER_MS);
    await page.waitForSelector('[data-lane="lane-1"][data-lane-state="idle"]');

    // Ada arrives at the north lane while Bob leaves by the south lane: both at once.
    scanWith(northScanner, tickets.ada.qr);
    scanWith(southScanner, tickets.bob.qr);
    await page.waitForSelector('[data-lane="lane-1"][data-lane-state="admit"][data-reason="valid"]');
    await page.waitForSelector('[data-lane="lane-2"][data-lane-state="exit"][data-reason="exited"]');
    expect(await page.textContent('[data-lane="lane-1"] [data-holder]')).toContain('Ada');
    expect(await page.textContent('[data-lane="lane-2"] [data-holder]')).toContain('Bob');
    const file = join(SHOTS, 'lanes-02-entry-exit.png');
    await page.screenshot({ path: file });
    if (process.env['UPDATE_SCREENSHOTS'] === '1') copyFileSync(file, join(ROOT, 'docs', 'screenshots', 'lanes-entry-exit.png'));
    // Each half ends on its own time: both after 3 s here, and neither took the other's verdict.
    await page.waitForSelector('[data-lane="lane-1"][data-lane-state="idle"]');
    await page.waitForSelector('[data-lane="lane-2"][data-lane-state="idle"]');
  });

  test("a keyboard-wedge scan from the window goes to the window's lane (lane 1)", async () => {
    await scanInPage(page, tickets.cleo.qr);
    await page.waitForSelector('[data-lane="lane-1"][data-lane-state="admit"]');
    expect(await page.textContent('[data-lane="lane-1"] [data-holder]')).toContain('Cleo');
    expect(await page.getAttribute('[data-lane="lane-2"]', 'data-lane-state')).toBe('idle');
    // Staff reach their settings from the split screen too (the Staff button, or F3).
    await page.click('[data-staff-corner] [data-action="open-staff"]');
    await page.waitForSelector('[data-staff-dialog][data-staff-mode="menu"] [data-lane-row="lane-2"]');
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });
});
