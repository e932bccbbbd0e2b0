/**
 * The issuer's admin dashboard end to end: the built `ticket-issuer` CLI
 * (init, admin-token reset, events, tickets, `serve --plain-http` as a child
 * process on loopback), scanners enrolled and scanning through the public
 * API, and the built page in real Chromium (docs/issuer.md "Admin dashboard").
 *
 * It signs in, sees the counts change without a reload after a check-in,
 * sees the alerts, looks a ticket up and revokes it, makes a setup QR and
 * reads it back off the screen (and enrolls a scanner with it), revokes a
 * scanner, lists the staff badges and revokes one, sets a capacity and sees the occupancy warn at 90% and say FULL
 * at 100%, annuls a check-in from the page, and downloads the CSV export.
 *
 * Needs the build (test/global-setup.ts does it); no keyring. Screenshots go
 * to test-results/admin/; with UPDATE_SCREENSHOTS=1 two are copied to
 * docs/screenshots/ for the README. The steps build on each other, in order.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { expect, test, type Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { issuerCli, LOOPBACK, ROOT, startIssuer, type RunningIssuer } from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { checkModuleGrid, pngPixels, qrVersion, sideWithQuietZone, zxingResults } from '../support/qr-decoders.js';

// jsqr is CommonJS with an ES-style default export: under NodeNext the callable is on `.default` at the type level only.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** The page's globals as the functions passed to page.evaluate see them (the Node build has no DOM lib). */
declare const sessionStorage: { readonly length: number };
declare const localStorage: { readonly length: number };
declare const document: { readonly cookie: string };
declare const window: { notReloaded?: boolean };

const SHOTS = join(ROOT, 'test-results', 'admin');
const README_SHOTS = join(ROOT, 'docs', 'screenshots');
const WAIT_MS = 30_000;
/** Screenshots shown in the README: test-results name → docs/screenshots name. */
const CURATED: Record<string, string> = { '03-dashboard': 'admin-dashboard.png', '06-setup-qr': 'admin-setup-qr.png' };

let root: string;
let dataDir: string;
let baseUrl: string;
let issuer: RunningIssuer | null = null;
let page: Page;
let adminToken: string;
let eid: string;
const pageErrors: string[] = [];

interface Scanner {
  apiKey: string;
  apiKeyId: string;
  scannerId: string;
}
let north: Scanner;
let south: Scanner;
const tickets: Record<string, string> = {};

async function shot(name: string): Promise<void> {
  const file = join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: name !== '06-setup-qr' });
  const curated = CURATED[name];
  if (curated && process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(file, join(README_SHOTS, curated));
}

async function enroll(setupCode: string, name: string): Promise<Scanner> {
  const { token } = decodeSetupCode(setupCode);
  const scannerId = randomUUID();
  const response = await fetch(`${baseUrl}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, scanner_id: scannerId, scanner_name: name, scanner_platform: 'e2e' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { api_key: string; api_key_id: string };
  return { apiKey: body.api_key, apiKeyId: body.api_key_id, scannerId };
}

async function checkIn(
  scanner: Scanner,
  tid: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: { status?: string } }> {
  const response = await fetch(`${baseUrl}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify({
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
      ...extra,
    }),
  });
  return { status: response.status, body: (await response.json()) as { status?: string } };
}

const tileValue = (id: string) => page.locator(`#${id} .tile-value`);
/** The page refreshes every 2 s: wait for several refreshes (two shared cores). */
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: WAIT_MS, intervals: [100] });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  if (!existsSync(join(ROOT, 'dist', 'dashboard', 'index.html'))) throw new Error('dist/dashboard is missing: run npm run build first');
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(README_SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'admin-e2e-'));
  dataDir = join(root, 'issuer');
  const port = await freePort();
  baseUrl = `http://${LOOPBACK}:${port}`;

  await issuerCli(dataDir, 'init', '--base-url', baseUrl, '--name', 'Harbour Lights Festival');
  adminToken = (await issuerCli<{ admin_token: string }>(dataDir, 'admin-token', 'reset')).admin_token;
  const start = new Date(Date.now() - 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(dataDir, 'event', 'create', '--name', 'Friday Night', '--date', start, '--venue', 'Pier 4')).eid;
  const otherEid = (
    await issuerCli<{ eid: string }>(
      dataDir,
      'event',
      'create',
      '--name',
      'Saturday Matinee',
      '--date',
      new Date(Date.now() + 86400_000).toISOString(),
      '--venue',
      'Pier 4',
    )
  ).eid;
  const issue = async (event: string, holder: string, type: string): Promise<string> =>
    (await issuerCli<{ tickets: { tid: string }[] }>(dataDir, 'ticket', 'issue', '--event', event, '--holder', holder, '--type', type))
      .tickets[0]!.tid;
  for (const [key, holder, type] of [
    ['ada', 'Ada Lovelace', 'VIP'],
    ['grace', 'Grace Hopper', 'VIP'],
    ['alan', 'Alan Turing', 'Standard'],
    ['edsger', 'Edsger Dijkstra', 'Standard'],
    ['barbara', 'Barbara Liskov', 'Standard'],
    ['donald', 'Donald Knuth', 'Standard'],
    ['margaret', 'Margaret Hamilton', 'Standard'],
    ['mallory', 'Mallory Refund', 'Standard'],
    ['frances', 'Frances Allen', 'Student'],
    ['katherine', 'Katherine Johnson', 'Student'],
  ] as const) {
    tickets[key] = await issue(eid, holder, type);
  }
  await issuerCli(dataDir, 'ticket', 'issue', '--event', eid, '--type', 'Standard', '--count', '30');
  tickets.other = await issue(otherEid, 'Olga Otherday', 'Standard');
  await issuerCli(dataDir, 'ticket', 'revoke', tickets.mallory!, '--reason', 'refund');

  issuer = await startIssuer(dataDir, port);
  north = await enroll(
    (await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', 'North')).setup_qr,
    'North door kiosk',
  );
  south = await enroll(
    (await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', 'South')).setup_qr,
    'South door kiosk',
  );

  // The evening so far: admits at both gates, and one of each alert.
  for (const key of ['ada', 'alan', 'edsger', 'frances']) expect((await checkIn(north, tickets[key]!)).body.status).toBe('valid');
  for (const key of ['barbara', 'donald']) expect((await checkIn(south, tickets[key]!)).body.status).toBe('valid');
  expect((await checkIn(south, tickets.mallory!)).body.status).toBe('revoked');
  expect((await checkIn(north, tickets.other!)).body.status).toBe('wrong_event');
  expect((await checkIn(north, tickets.grace!, { signature_status: 'invalid' })).status).toBe(400);
  // The south kiosk was offline: its queued scan of Alan's ticket arrives 4 minutes late.
  expect((await checkIn(south, tickets.alan!, { scanned_at: new Date(Date.now() - 4 * 60_000).toISOString() })).body.status).toBe(
    'already_used',
  );

  page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  // A Content-Security-Policy violation is reported on the console: the page must not cause any.
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
});

test.afterAll(async () => {
  await page?.close().catch(() => undefined);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

test.describe.serial('the admin dashboard in Chromium', () => {
  test('asks for the admin token, refuses a wrong one, and signs in with the right one', async () => {
    await page.goto(`${baseUrl}/admin`);
    await page.locator('#admin-token').waitFor();
    await shot('01-sign-in');
    await page.fill('#admin-token', 'tva_this-is-not-the-token-of-this-issuer-at-all');
    await page.click('button[type=submit]');
    await eventually(() => page.textContent('#sign-in-message')).toContain('not right');
    await shot('02-wrong-token');

    await page.fill('#admin-token', adminToken);
    await page.click('button[type=submit]');
    await eventually(() => tileValue('tile-checked-in').textContent()).toBe('6');
    // The token is kept in this tab only, never in the URL.
    expect(page.url()).toBe(`${baseUrl}/admin`);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['ticket-issuer-admin-token']);
    expect(await page.evaluate(() => localStorage.length + document.cookie.length)).toBe(0);
  });

  test('shows the live figures: checked in of issued, per gate, per type, scans per minute, scanners, alerts in words', async () => {
    await eventually(() => page.textContent('#tile-checked-in .tile-detail')).toContain('of 40 issued');
    expect(await page.textContent('#tile-checked-in .tile-detail')).toContain('1 revoked');
    expect(await page.textContent('#tile-scanners .tile-value')).toBe('2 of 2');
    expect(await page.textContent('#gates')).toMatch(/North\s*4/);
    expect(await page.textContent('#gates')).toMatch(/South\s*2/);
    expect(await page.textContent('#types')).toMatch(/VIP\s*1\s*2/);
    expect(await page.textContent('#types')).toMatch(/Standard\s*4\s*36/);
    expect(Number(await tileValue('tile-rate').textContent())).toBeGreaterThanOrEqual(10);

    const alerts = page.locator('#alert-list li');
    await eventually(() => alerts.count()).toBe(4);
    const tags = await page.locator('#alert-list .alert-tag').allTextContents();
    expect(tags.map((tag) => tag.replace(/^\S+\s/, ''))).toEqual(['DOUBLE ADMISSION?', 'FORGED', 'WRONG EVENT', 'REVOKED']);
    const double = await page.textContent('#alert-list li[data-kind=offline_double_admission]');
    expect(double).toContain('Alan Turing');
    expect(double).toContain('gate South by South door kiosk');
    expect(double).toContain('at gate North by North door kiosk');
    expect(await page.textContent('#alert-list li[data-kind=wrong_event]')).toContain('Saturday Matinee');
    expect(await page.textContent('#scanner-table')).toContain('North door kiosk');
    expect(await page.textContent('#scanner-table')).toMatch(/Online/);
    // The arrivals chart (docs/issuer.md "Arrivals chart"): a canvas per the two gates, and its words.
    expect(await page.getAttribute('#arrivals-plot', 'data-series')).toBe('North in|South in');
    expect(await page.locator('#arrivals-plot canvas').count()).toBe(1);
    expect(await page.locator('#arrivals-summary p').allTextContents()).toEqual(
      expect.arrayContaining(['North: 4 entries, 0 exits.', 'South: 2 entries, 0 exits.']),
    );
    await shot('03-dashboard');
  });

  test('updates the counts without a reload after a check-in through the public API', async () => {
    await page.evaluate(() => (window.notReloaded = true));
    const before = await page.getAttribute('#app', 'data-generated-at');
    expect((await checkIn(north, tickets.katherine!)).body.status).toBe('valid');
    await eventually(() => tileValue('tile-checked-in').textContent()).toBe('7');
    await eventually(() => page.textContent('#types')).toMatch(/Student\s*2\s*2/);
    expect(await page.evaluate(() => window.notReloaded)).toBe(true);
    expect(await page.getAttribute('#app', 'data-generated-at')).not.toBe(before);
  });

  test('looks a ticket up by holder name and revokes it; the next scan of it is refused', async () => {
    await page.fill('#lookup-query', 'hamilton');
    await page.click('#lookup button[type=submit]');
    const card = page.locator(`#lookup-results li[data-tid="${tickets.margaret}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('Margaret Hamilton');
    expect(await card.textContent()).toContain('Valid, not checked in');
    await shot('04-lookup');

    await card.locator('button[data-action=revoke-ticket]').click();
    await page.locator('#revoke-ticket-dialog').waitFor();
    await page.fill('#revoke-ticket-dialog-reason', 'duplicate order');
    await shot('05-revoke-ticket');
    await page.click('#revoke-ticket-dialog-confirm');
    await eventually(() => card.locator('.ticket-status').textContent()).toBe('Revoked');
    expect(await card.textContent()).toContain('duplicate order');
    expect((await checkIn(south, tickets.margaret!)).body.status).toBe('revoked');
    await eventually(() => page.textContent('#tile-checked-in .tile-detail')).toContain('2 revoked');

    // By ticket id too, in lower case.
    await page.fill('#lookup-query', tickets.ada!.toLowerCase());
    await page.click('#lookup button[type=submit]');
    await eventually(() => page.textContent('#lookup-results')).toContain('Ada Lovelace');
    expect(await page.textContent('#lookup-results')).toContain('gate North, by North door kiosk');
  });

  test('creates a setup QR for a gate, shown large; the code read off the screen enrolls a scanner for that gate', async () => {
    await page.fill('#setup-gate', 'East');
    await page.click('#create-setup');
    const image = page.locator('#setup-qr-image');
    await image.waitFor();
    const box = (await image.boundingBox())!;
    expect(box.width).toBeGreaterThan(500);
    await shot('06-setup-qr');

    const onScreen = await image.screenshot();
    const png = PNG.sync.read(onScreen);
    const read = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(read, 'the QR on screen decodes').not.toBeNull();
    // A second, independent decoder (zxing-cpp) reads the same string off the screen, and the
    // code is drawn with a whole number of pixels per module and a 4-module quiet zone
    // (docs/issuer.md "QR codes"): at 80vh it used to be about 10.4 px per module.
    const placed = (await image.boundingBox())!;
    expect([placed.x, placed.y, placed.width, placed.height].every(Number.isInteger), `on whole pixels: ${JSON.stringify(placed)}`).toBe(
      true,
    );
    const pixels = pngPixels(onScreen);
    const [zxing] = await zxingResults(pixels);
    expect(zxing?.text, 'zxing-cpp reads the QR on screen').toBe(read!.data);
    expect(checkModuleGrid(pixels, sideWithQuietZone(qrVersion(zxing!)))).toBeGreaterThanOrEqual(4);
    const payload = decodeSetupCode(read!.data);
    expect(payload).toMatchObject({ eid, gate_id: 'East', event_name: 'Friday Night', iss: baseUrl });
    await page.click('#close-setup');

    const east = await enroll(read!.data, 'East door kiosk');
    expect((await checkIn(east, tickets.grace!)).body.status).toBe('valid');
    await eventually(() => page.textContent('#scanner-table')).toContain('East door kiosk');
    await eventually(() => page.textContent('#tile-scanners .tile-value')).toBe('3 of 3');
  });

  test('revokes a scanner from the table; its next request is refused', async () => {
    const row = page.locator(`#scanner-table tr[data-api-key-id="${south.apiKeyId}"]`);
    await row.locator('button').click();
    await page.locator('#revoke-scanner-dialog').waitFor();
    await page.click('#revoke-scanner-dialog-confirm');
    await eventually(() => row.locator('.state').textContent()).toContain('Revoked');
    expect((await checkIn(south, tickets.donald!)).status).toBe(401);
    await eventually(() => page.textContent('#tile-scanners .tile-value')).toBe('2 of 2');
  });

  test('lists the staff badges issued with the CLI and revokes one from the panel with a reason; staff badge list says it is revoked', async () => {
    interface Badge {
      sid: string;
      name: string;
      role: string;
      revoked_at: string | null;
      revoked_reason: string | null;
    }
    const badge = (name: string, role: string) =>
      issuerCli<Badge>(dataDir, 'staff', 'badge', 'issue', '--event', eid, '--name', name, '--role', role);
    const kim = await badge('Kim Steward', 'steward');
    const lee = await badge('Lee Supervisor', 'supervisor');
    const row = (sid: string) => page.locator(`#staff-badge-table tr[data-sid="${sid}"]`);
    await eventually(() => row(lee.sid).textContent()).toContain('Lee Supervisor');
    for (const [shown, name, role] of [
      [kim, 'Kim Steward', 'Steward'],
      [lee, 'Lee Supervisor', 'Supervisor'],
    ] as const) {
      const cells = await row(shown.sid).locator('td').allTextContents();
      expect(cells.slice(0, 3)).toEqual([name, role, shown.sid]);
      expect(cells[3]).not.toBe('');
      expect(cells[4]).not.toBe('');
      expect(cells[5]).toBe('Valid');
      await expect(row(shown.sid).locator('button[data-action=revoke-badge]')).toBeVisible();
    }

    await row(kim.sid).locator('button[data-action=revoke-badge]').click();
    await page.locator('#revoke-badge-dialog').waitFor();
    expect(await page.textContent('#revoke-badge-dialog')).toContain(kim.sid);
    await page.fill('#revoke-badge-dialog-reason', 'left the crew');
    await page.click('#revoke-badge-dialog-confirm');
    await eventually(() => row(kim.sid).locator('.state').textContent()).toMatch(/^Revoked .+ · reason: left the crew$/);
    await expect(row(kim.sid).locator('button[data-action=revoke-badge]')).toBeHidden();
    expect(await row(lee.sid).locator('.state').textContent()).toBe('Valid');
    await shot('10-staff-badges');

    const { badges } = await issuerCli<{ badges: Badge[] }>(dataDir, 'staff', 'badge', 'list', '--event', eid);
    expect(badges.find((b) => b.sid === kim.sid)).toMatchObject({ revoked_reason: 'left the crew', revoked_at: expect.any(String) });
    expect(badges.find((b) => b.sid === lee.sid)).toMatchObject({ revoked_at: null, revoked_reason: null });
  });

  test('shows live occupancy with a capacity set on the page: NEARLY FULL from 90%, FULL at 100%, per gate; kiosks say their offline exposure', async () => {
    // Inside now: Ada, Alan, Edsger, Frances, Katherine (North), Barbara, Donald (South), Grace (East).
    await eventually(() => page.textContent('#door-inside')).toBe('8');
    expect(await page.textContent('#door')).toContain('No capacity set');
    expect(await page.locator('#door-level').count()).toBe(0);
    await page.fill('#door-capacity', '10');
    await page.click('#door-settings-save');
    await eventually(() => page.textContent('#door-inside')).toBe('8 of 10');
    expect(await page.locator('#door-level').count()).toBe(0);

    const [walkIn1, walkIn2, walkIn3] = (
      await issuerCli<{ tickets: { tid: string }[] }>(dataDir, 'ticket', 'issue', '--event', eid, '--type', 'Standard', '--count', '3')
    ).tickets.map((ticket) => ticket.tid) as [string, string, string];
    expect((await checkIn(north, walkIn1, { action: 'entry' })).body.status).toBe('valid');
    await eventually(() => page.textContent('#door-inside')).toBe('9 of 10');
    const level = page.locator('#door-level');
    await eventually(() => level.getAttribute('data-level')).toBe('nearly_full');
    expect(await level.textContent()).toContain('NEARLY FULL');
    expect(await level.textContent()).toContain('90.0 % of the capacity');
    await shot('08-nearly-full');

    expect((await checkIn(north, walkIn2, { action: 'entry' })).body.status).toBe('valid');
    await eventually(() => level.getAttribute('data-level')).toBe('full');
    expect(await level.textContent()).toContain('FULL');
    expect(await level.textContent()).toContain('refuse new entries');
    expect(await page.textContent('#door-inside')).toBe('10 of 10');
    expect((await checkIn(north, walkIn3, { action: 'entry' })).body.status).toBe('venue_full');
    expect(await page.textContent('#door tr[data-gate=North]')).toMatch(/North\s*7\s*7\s*0/);
    expect(await page.textContent('#door tr[data-gate=East]')).toMatch(/East\s*1\s*1\s*0/);

    // A kiosk's heartbeat: its queue and what it admitted offline, per type.
    const heartbeat = await fetch(`${baseUrl}/api/v1/scanners/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${north.apiKey}` },
      body: JSON.stringify({
        scanner_id: north.scannerId,
        direction: 'entry',
        pending_scans: 2,
        offline_exposure: { VIP: 2 },
        offline_last_hour: { VIP: 2 },
      }),
    });
    expect(heartbeat.status).toBe(200);
    const kiosk = page.locator(`#kiosks tr[data-api-key-id="${north.apiKeyId}"]`);
    await eventually(() => kiosk.textContent()).toContain('VIP: 2 not synced, 2 in the last hour, 0 synced');
    expect(await kiosk.textContent()).toContain('North door kiosk');
    expect(await kiosk.textContent()).toContain('Entry');
    await shot('09-full');
  });

  test('sets an offline policy per ticket type on the page; the kiosk that reached the cap says AT CAP', async () => {
    const vipRow = page.locator('#policy-table tr[data-type=VIP]');
    await eventually(() => vipRow.textContent()).toContain('Admit on a valid signature (the default)');
    await page.selectOption('#policy-type', 'VIP');
    await page.selectOption('#policy-kind', 'capped');
    await page.fill('#policy-per-hour', '2');
    await page.click('#policy-save');
    await eventually(() => vipRow.textContent()).toBe('VIPAt most 2 admissions per kiosk per hour');
    expect(await page.textContent('#policy-table tr[data-type=Standard]')).toContain('(the default)');
    const kiosk = page.locator(`#kiosks tr[data-api-key-id="${north.apiKeyId}"]`);
    await eventually(() => kiosk.textContent()).toContain('VIP: 2 not synced, 2 in the last hour (cap 2), 0 synced AT CAP');
    // What the kiosks are told at their next heartbeat.
    const told = await fetch(`${baseUrl}/api/v1/scanners/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${north.apiKey}` },
      body: JSON.stringify({
        scanner_id: north.scannerId,
        direction: 'entry',
        pending_scans: 2,
        offline_exposure: { VIP: 2 },
        offline_last_hour: { VIP: 2 },
      }),
    });
    expect(((await told.json()) as { offline_policies: unknown }).offline_policies).toEqual({
      default: { policy: 'offline' },
      by_type: { VIP: { policy: 'capped', per_hour: 2 } },
    });
    await shot('10-offline-policy');
  });

  test('annuls a check-in from the page with a reason; occupancy drops below FULL and the annulment is listed', async () => {
    await page.fill('#lookup-query', 'dijkstra');
    await page.click('#lookup button[type=submit]');
    const card = page.locator(`#lookup-results li[data-tid="${tickets.edsger}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('Inside');
    await card.locator('button[data-action=annul-check-in]').click();
    await page.locator('#annul-dialog').waitFor();
    // Without a reason nothing is annulled.
    await page.click('#annul-dialog-confirm');
    await eventually(() => page.textContent('#lookup-results')).toContain('Give a reason to annul a check-in.');
    expect(await page.textContent('#door-inside')).toBe('10 of 10');

    await page.fill('#lookup-query', 'dijkstra');
    await page.click('#lookup button[type=submit]');
    await card.locator('button[data-action=annul-check-in]').click();
    await page.locator('#annul-dialog').waitFor();
    await page.fill('#annul-dialog-reason', 'let in on the wrong ticket');
    await shot('11-annul');
    // The request the confirm sends and its answer, awaited: a failure says whether the page sent it, and what came
    // back, instead of only that the card did not change (a clean-clone run once timed out here, not reproduced).
    const [answer] = await Promise.all([
      page.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url().endsWith(`/tickets/${tickets.edsger}/annul`),
      ),
      page.click('#annul-dialog-confirm'),
    ]);
    expect(answer.status()).toBe(200);
    await page.locator('#annul-dialog').waitFor({ state: 'detached' });
    await eventually(() => card.textContent()).toContain('Check-in annulled');
    expect(await card.locator('.ticket-status').textContent()).toBe('Valid, not checked in');
    expect(await card.locator('button[data-action=annul-check-in]').count()).toBe(0);
    await eventually(() => page.textContent('#door-inside')).toBe('9 of 10');
    await eventually(() => page.locator('#door-level').getAttribute('data-level')).toBe('nearly_full');
    const annulment = page.locator(`#annulment-list li[data-tid="${tickets.edsger}"]`);
    await annulment.waitFor();
    expect(await annulment.textContent()).toContain('Edsger Dijkstra');
    expect(await annulment.textContent()).toContain('by the dashboard');
    expect(await annulment.textContent()).toContain('Reason: let in on the wrong ticket');
    expect(await page.textContent('#activity')).toContain('1 annulled');
    // docs/issuer.md "ID and age checks": the tile of entries let in with the ID not checked (no type here asks for one).
    expect(await page.locator('#id-not-checked').getAttribute('data-count')).toBe('0');
    expect(await page.textContent('#id-not-checked')).toBe('0 entries with ID not checked');
    // The ticket is usable again at the door.
    expect((await checkIn(north, tickets.edsger!, { action: 'entry' })).body.status).toBe('valid');
    await eventually(() => page.textContent('#door-inside')).toBe('10 of 10');
  });

  test('downloads the check-ins as CSV, the same rows as checkins export', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    expect(download.suggestedFilename()).toBe(`checkins-${eid}.csv`);
    const file = join(root, 'download.csv');
    await download.saveAs(file);
    const csv = readFileSync(file, 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe(
      'source,at,outcome,tid,eid,holder_name,ticket_type,scanned_at,scanner_id,api_key_id,gate_id,idempotency_key,details,action,state,actor,reason,staff_id,attention_overridden_by,id_check',
    );
    expect(lines.filter((line) => line.startsWith('checkins,'))).toHaveLength(10);
    // The check-in annulled from the page: marked (Edsger came in again since: that is his check-in now), and its annulment with who and why.
    expect(lines.find((line) => line.startsWith('checkins,') && line.includes(tickets.edsger!))).toContain(',checked_in,');
    expect(
      lines.some(
        (line) =>
          line.startsWith('admission_events,') &&
          line.includes(tickets.edsger!) &&
          line.includes(',entry_annulled,') &&
          // The last columns are staff_id, attention_overridden_by and id_check.
          new RegExp(`,entry,annulled,scanner:${north.scannerId},let in on the wrong ticket,[^,]*,[^,]*,[^,]*$`).test(line),
      ),
    ).toBe(true);
    expect(
      lines.some(
        (line) =>
          line.startsWith('admission_events,') &&
          line.includes(tickets.edsger!) &&
          /,annulled,.*,annul,,dashboard,let in on the wrong ticket,[^,]*,[^,]*,[^,]*$/.test(line),
      ),
    ).toBe(true);
    expect(csv).toContain(',invalid_signature,');
    expect(csv).toContain('Katherine Johnson');
    await eventually(() => page.textContent('#export')).toContain(`Downloaded checkins-${eid}.csv`);
    await shot('07-after-actions');
  });

  test('signing out forgets the token; a wrong token afterwards is still refused', async () => {
    await page.click('#sign-out');
    await page.locator('#admin-token').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.reload();
    await page.locator('#admin-token').waitFor();
    expect(await page.locator('#tiles').count()).toBe(0);
  });

  test('raised no page error and no Content-Security-Policy violation', () => {
    // The wrong token's 401 is logged by Chromium as a failed resource load: expected, nothing else is.
    expect(pageErrors.filter((error) => !/status of 401/.test(error))).toEqual([]);
  });
});
