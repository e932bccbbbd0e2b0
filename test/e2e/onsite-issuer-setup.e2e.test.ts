/**
 * Making this laptop the venue's issuer from the kiosk's Setup screen, in real
 * Chromium with the built screens: a real OnsiteIssuer (HTTPS on loopback) and
 * a real kiosk core behind the web host. The one stand-in is Electron's IPC:
 * the page's `window.onsiteIssuer` calls the main process's own handler
 * (handleIssuerCall) through a Playwright binding, unwrapping its answers as
 * the preload does. The admin window (Electron) is recorded, not opened.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { LOOPBACK, openKioskPage, RENDERER_DIR, requireBuild, ROOT } from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';
import { MemoryApiKeys } from '../support/unit/memory-api-keys.js';
import { handleIssuerCall, type IssuerHost } from '../../main/electron/onsite-issuer-calls.js';
import { KioskCore } from '../../main/kiosk/kiosk-core.js';
import { OnsiteIssuer } from '../../main/onsite-issuer/onsite-issuer.js';
import { startWebHost, type WebHost } from '../../main/web-host/server.js';
import { captureLog } from '../support/unit/log-capture.js';

const WAIT_MS = 30_000;
const LAN = {
  wlan0: [
    {
      address: '192.168.7.20',
      netmask: '255.255.255.0',
      family: 'IPv4' as const,
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '192.168.7.20/24',
    },
  ],
};

let root: string;
let issuer: OnsiteIssuer;
let core: KioskCore;
let host: WebHost;
let page: Page;
let port: number;
const adminWindows: { url: string; fingerprint: string }[] = [];
const pageErrors: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  requireBuild();
  root = mkdtempSync(join(tmpdir(), 'onsite-setup-e2e-'));
  port = await freePort();
  issuer = new OnsiteIssuer({ dataDir: join(root, 'issuer-data'), logger: captureLog().logger, networkInterfaces: () => LAN });
  const issuerHost: IssuerHost = { issuer, openAdmin: async (target) => void adminWindows.push(target) };
  core = new KioskCore({ dbPath: join(root, 'kiosk.db'), apiKeys: new MemoryApiKeys(), autoDrain: false });
  host = await startWebHost({ core, host: LOOPBACK, port: 0, rendererDir: RENDERER_DIR, log: () => undefined });

  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  // The preload's side of the IPC: structured-clone the arguments, answer {ok, value} or {ok: false, error}.
  await page.exposeFunction('__issuerIpc', (method: string, args: unknown) => handleIssuerCall(issuerHost, method, structuredClone(args)));
  await page.addInitScript(() => {
    type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };
    const ipc = (globalThis as unknown as { __issuerIpc: (method: string, args: unknown[]) => Promise<Answer> }).__issuerIpc;
    const call = async (method: string, ...args: unknown[]): Promise<unknown> => {
      const answer = await ipc(method, args);
      if (answer.ok) return answer.value;
      throw new Error(answer.error.message);
    };
    (globalThis as unknown as { onsiteIssuer: unknown }).onsiteIssuer = {
      status: () => call('status'),
      init: (request: unknown) => call('init', request),
      start: () => call('start'),
      stop: () => call('stop'),
      openAdmin: () => call('openAdmin'),
      resetAdminToken: () => call('resetAdminToken'),
    };
  });
  await openKioskPage(page, host);
});

test.afterAll(async () => {
  await page?.close().catch(() => undefined);
  await host?.close().catch(() => undefined);
  await core?.close().catch(() => undefined);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

const panel = () => page.locator('[data-issuer-panel]');

test.describe.serial('the Setup screen of a fresh install', () => {
  test('offers to make this laptop the issuer, beside the usual "scan the setup code"', async () => {
    await expect.poll(() => panel().getAttribute('data-issuer-state'), { timeout: WAIT_MS }).toBe('offer');
    expect(await page.locator('.setup__title').textContent()).toBe('Scan the setup code from your organizer');
    expect(await panel().textContent()).toContain('This laptop can be the issuer');
  });

  test('asks for a name and suggests this machine’s LAN address; typing there is not taken for a scan', async () => {
    await page.click('[data-action="issuer-offer"]');
    await expect.poll(() => panel().getAttribute('data-issuer-state')).toBe('form');
    expect(await page.inputValue('#issuer-url-input')).toBe('https://192.168.7.20:8443');
    await page.click('[data-action="issuer-create"]');
    expect(await page.locator('[data-issuer-problem]').textContent()).toBe('Enter a name for the issuer.');
    // Typed fast, as a keyboard-wedge scanner would: it lands in the field, and the wedge does not read a "scan".
    await page.focus('#issuer-name-input');
    await page.keyboard.type('Harbour Festival', { delay: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the wedge's end-of-burst pause
    expect(await page.inputValue('#issuer-name-input')).toBe('Harbour Festival');
    expect(await page.locator('[data-setup-message]').count()).toBe(0);
    expect((await issuer.status()).initialised).toBe(false);
    await page.screenshot({ path: join(ROOT, 'test-results', 'e2e', '20-setup-onsite-issuer-form.png') });
  });

  test('refuses an address kiosks could not trust, in the issuer’s own words, and keeps what was typed', async () => {
    await page.fill('#issuer-url-input', 'http://192.168.7.20:8443');
    await page.click('[data-action="issuer-create"]');
    const problem = page.locator('[data-issuer-problem]');
    await expect.poll(() => problem.count()).toBe(1);
    expect(await problem.textContent()).toMatch(/^The on-site issuer: .*https/i);
    expect(await page.inputValue('#issuer-name-input')).toBe('Harbour Festival');
    expect((await issuer.status()).initialised).toBe(false);
  });

  test('creates and starts the issuer, then says where kiosks reach it and what to do next', async () => {
    // The venue address (this test's stand-in LAN), on a free port: the issuer listens on every interface.
    const baseUrl = `https://192.168.7.20:${port}`;
    await page.fill('#issuer-url-input', baseUrl);
    await page.click('[data-action="issuer-create"]');
    await expect.poll(() => panel().getAttribute('data-issuer-state')).toBe('running');
    const status = await issuer.status();
    expect(status).toMatchObject({ initialised: true, running: true, issuer: { name: 'Harbour Festival', baseUrl }, warnings: [] });
    expect(await panel().textContent()).toContain(`On-site issuer "Harbour Festival" is running at ${baseUrl}`);
    expect(await panel().textContent()).toContain('admin dashboard');
    // It serves HTTPS with its self-signed certificate: discovery names the issuer typed in the form.
    const discovery = await new Promise<{ issuer: string; name: string }>((resolve, reject) => {
      https
        .get(`https://${LOOPBACK}:${port}/.well-known/ticket-issuer.json`, { rejectUnauthorized: false }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(JSON.parse(body) as { issuer: string; name: string }));
        })
        .on('error', reject);
    });
    expect(discovery).toMatchObject({ issuer: baseUrl, name: 'Harbour Festival' });
    const shot = join(ROOT, 'test-results', 'e2e', '21-setup-onsite-issuer-running.png');
    await page.screenshot({ path: shot });
    // Shown in the README, like the door's screens (door.e2e.test.ts).
    if (process.env['UPDATE_SCREENSHOTS'] === '1') copyFileSync(shot, join(ROOT, 'docs', 'screenshots', 'setup-onsite-issuer.png'));
  });

  test('makes a dashboard sign-in token on request (kiosk mode has no Issuer menu), shown once and accepted by the dashboard', async () => {
    expect(await page.locator('[data-admin-token]').count()).toBe(0);
    await page.click('[data-action="issuer-new-token"]');
    const token = (await page.locator('[data-admin-token]').textContent())!;
    expect(token).toMatch(/^tva_/);
    const session = await new Promise<number>((resolve, reject) => {
      https
        .get(
          `https://${LOOPBACK}:${port}/admin/api/session`,
          { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });
    expect(session).toBe(200);
    // A second one ends the first.
    await page.click('[data-action="issuer-new-token"]');
    await expect.poll(() => page.locator('[data-admin-token]').textContent()).not.toBe(token);
  });

  test('opens the admin dashboard pinned to the issuer’s certificate', async () => {
    await page.click('[data-action="issuer-open-admin"]');
    await expect.poll(() => adminWindows.length).toBe(1);
    expect(adminWindows[0]).toEqual({ url: `https://127.0.0.1:${port}/admin`, fingerprint: (await issuer.status()).fingerprint });
    expect(pageErrors).toEqual([]);
  });
});
