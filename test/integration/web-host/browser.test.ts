/**
 * The web host in a real Chromium (playwright-core, /usr/bin/chromium): the
 * page gets `window.kiosk` from /kiosk-host.js and can call the kiosk and
 * receive state pushes, under the strict CSP. Serves the built renderer when
 * dist/kiosk-page exists, else a tiny page of this test's own.
 * Run inside scripts/with-keyring.sh (the real kiosk runtime keeps its key in the OS keyring).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rendererDistDir } from '../../../main/host/app-paths.js';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';
import { startWebHost, type WebHost } from '../../../main/web-host/server.js';
import type { KioskApi, KioskState } from '../../../renderer/kiosk-bridge-types.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const builtRenderer = existsSync(join(rendererDistDir(), 'index.html'));
let dataDir: string;
let testPageDir: string | null = null;
let runtime: KioskRuntime;
let host: WebHost;
let browser: Browser;
let page: Page;
const cspViolations: string[] = [];

/** The page's window as the functions passed to page.evaluate see it (the test build has no DOM types). */
declare const window: { kiosk?: KioskApi; receivedStates?: KioskState[] };
declare const document: { cookie: string };

beforeAll(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('Run this test inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-browser-'));
  if (!builtRenderer) {
    testPageDir = mkdtempSync(join(tmpdir(), 'kiosk-browser-page-'));
    writeFileSync(
      join(testPageDir, 'index.html'),
      '<!doctype html><html><head><title>kiosk test page</title></head><body><main id="screen"></main></body></html>',
    );
  }
  runtime = await startKioskRuntime({
    dataDir,
    keyringService: `ticket-kiosk-browser-test-${process.pid}`,
    hidScanners: false,
    core: { autoDrain: false },
    log: () => undefined,
  });
  host = await startWebHost({ core: runtime.core, rendererDir: testPageDir ?? rendererDistDir(), log: () => undefined });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  page.on('console', (message) => {
    // Violations only: Chromium also notes that frame-ancestors in a meta tag is ignored (the header carries it).
    if (/Refused to|violates the following Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  // As a user does: the launch URL the host prints, traded for a session cookie.
  await page.goto(host.launchUrl());
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await runtime?.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (testPageDir) rmSync(testPageDir, { recursive: true, force: true });
});

describe(`window.kiosk in Chromium (${builtRenderer ? 'built renderer' : 'test page'})`, () => {
  it('trades the launch URL for an HttpOnly SameSite=Strict cookie and lands on the URL without the token; a reload keeps the session', async () => {
    expect(page.url()).toBe(host.url);
    const [cookie] = await page.context().cookies(host.url);
    expect(cookie).toMatchObject({ name: `ticket-kiosk-session-${host.port}`, httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.reload();
    await page.waitForFunction(() => window.kiosk !== undefined);
    expect(await page.evaluate(() => window.kiosk!.getState())).toEqual(await runtime.core.getState());
  });

  it('a second browser without the launch URL gets no kiosk: the page says how to get a launch URL', async () => {
    const other = await browser.newContext();
    try {
      const stranger = await other.newPage();
      const response = await stranger.goto(host.url);
      expect(response!.status()).toBe(401);
      expect(await stranger.textContent('body')).toContain('ticket-kiosk web --print-url');
    } finally {
      await other.close();
    }
  });

  it('is defined by the host script and answers getState from the page', async () => {
    const state = await page.evaluate(() => window.kiosk!.getState());
    expect(state).toEqual(await runtime.core.getState());
    expect(await page.evaluate(() => Object.isFrozen(window.kiosk))).toBe(true);
  });

  it('rejects invalid input with the reason, and pushes state changes to the page', async () => {
    const rejection = await page.evaluate(() =>
      window.kiosk!.setScannerName('bad\nname').then(
        () => 'resolved',
        (error: Error) => error.message,
      ),
    );
    expect(rejection).toMatch(/control characters/);

    await page.evaluate(() => {
      window.receivedStates = [];
      window.kiosk!.onStateChange((state) => window.receivedStates!.push(state));
    });
    // Whether this subscription opens the event stream (whose first event is the current state)
    // or joins the renderer's, the state with the new name arrives.
    await page.evaluate(() => window.kiosk!.setScannerName('Browser door'));
    await page.waitForFunction(() => window.receivedStates!.some((state) => state.scanner.name === 'Browser door'));
    expect((await runtime.core.getState()).scanner.name).toBe('Browser door');
  });

  it('runs without Content-Security-Policy violations', () => {
    expect(cspViolations).toEqual([]);
  });

  // Last: it ends this page's session.
  it('when the session is gone, the next call reloads the page, which then says how to get a new launch URL', async () => {
    await page.context().clearCookies();
    const reloaded = page.waitForEvent('load');
    await page
      .evaluate(() => window.kiosk!.getState().catch(() => undefined))
      .catch((error: unknown) => {
        // The reload this call causes (or one the page's own next call causes) may come before evaluate's answer:
        // the navigation is the outcome under test, checked below.
        if (!String(error).includes('Execution context was destroyed')) throw error;
      });
    await reloaded;
    expect(await page.textContent('body')).toContain('ticket-kiosk web --print-url');
  });
});
