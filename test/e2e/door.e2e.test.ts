/**
 * End to end at the door: a real issuer (the built `ticket-issuer` CLI, a child
 * process, plain HTTP on loopback), the real kiosk core with its API key in the
 * real OS keyring behind the web host, and the built screens in real Chromium.
 * Scans are typed the way a keyboard-wedge scanner types them.
 *
 * Needs the build (test/global-setup.ts does it) and a keyring:
 *   scripts/with-keyring.sh npx playwright test test/e2e/door.e2e.test.ts
 * Screenshots go to test-results/e2e/; with UPDATE_SCREENSHOTS=1 a curated set is copied to docs/screenshots/.
 *
 * The steps build on each other (one door, one evening), so they run in order.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import {
  issuerCli,
  LOOPBACK as HOST,
  openKioskPage,
  RENDERER_DIR,
  requireBuild,
  ROOT,
  scanInPage as scan,
  startIssuer,
  type RunningIssuer,
} from '../support/door-harness.js';
import Database from 'better-sqlite3';
import { freePort } from '../support/free-port.js';
import { startKioskRuntime, type KioskRuntime } from '../../main/host/kiosk-runtime.js';
import { DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS } from '../../main/kiosk/decide/repeat-reads.js';
import { CALIBRATION_CODE } from '../../protocol/index.js';
import { asTypedOn, typeAsScannerUnbroken, type TestLayout } from '../support/cdp-keyboard.js';
import { DEFAULT_WEDGE_TIMING } from '../../renderer/wedge/keystrokes.js';
import { KeychainApiKeyStore } from '../../main/kiosk/store/api-key-store.js';
import { startWebHost, type WebHost } from '../../main/web-host/server.js';

const SHOTS = join(ROOT, 'test-results', 'e2e');
const README_SHOTS = join(ROOT, 'docs', 'screenshots');
/** Waits for the page are generous: two shared cores, a browser, an issuer and the test itself. */
const WAIT_MS = 30_000;
/** After the issuer returns, the queue retries on its backoff (at most 30 s between tries). */
const DRAIN_WAIT_MS = 90_000;
const KEYRING_SERVICE = `ticket-kiosk-e2e-${process.pid}`;

/** A US-layout scanner on a German (QWERTZ) computer: Y and Z swap, `-` and `_` become `ß` and `?`. */
function asTypedOnGermanLayout(code: string): string {
  const de: Record<string, string> = { y: 'z', z: 'y', Y: 'Z', Z: 'Y', '-': 'ß', _: '?' };
  return [...code].map((c) => de[c] ?? c).join('');
}

/** A real ticket with its holder and type changed after signing: the payload no longer matches the signature. */
function forge(code: string): string {
  const [prefix, payload, signature] = code.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  claims['hn'] = 'Frank Forger';
  claims['tt'] = 'VIP';
  return [prefix, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
}

/** Screens shown in the README: test-results name → docs/screenshots name. */
const CURATED: Record<string, string> = {
  '01-setup': 'setup.png',
  '02-ready': 'ready.png',
  '03-admit': 'admit.png',
  '04-refuse-already-used': 'refuse-already-used.png',
  '10-refuse-layout-mismatch': 'refuse-layout-mismatch.png',
  '12-ready-offline': 'ready-offline.png',
  '14-lookup': 'lookup.png',
  '15-admit-read-again': 'admit-read-again.png',
  '16-calibrated-fr': 'scanner-check.png',
};

async function shot(page: Page, name: string): Promise<void> {
  const file = join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  const curated = CURATED[name];
  // Only on request (UPDATE_SCREENSHOTS=1), so a test run never changes committed files.
  if (curated && process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(file, join(README_SHOTS, curated));
}

interface Tickets {
  admitted: { tid: string; qr: string };
  revoked: { tid: string; qr: string };
  forgedFrom: { tid: string; qr: string };
  mangled: { tid: string; qr: string };
  offline: { tid: string; qr: string };
  expired: { tid: string; qr: string };
  otherEvent: { tid: string; qr: string };
  doubleRead5: { tid: string; qr: string };
  doubleRead250: { tid: string; qr: string };
  germanLayout: { tid: string; qr: string };
  frenchLayout: { tid: string; qr: string };
}

/** A scan of the same ticket this much later is a new scan, not a double read (docs/kiosk.md "Double reads"). */
const PAST_REPEAT_WINDOW_MS = Math.max(DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS.admit) + 300;

let root: string;
let issuerDir: string;
let issuerPort: number;
let baseUrl: string;
let eid: string;
let setupCode: string;
let tickets: Tickets;
let issuer: RunningIssuer | null = null;
let runtime: KioskRuntime | null = null;

/** The kiosk's newest audit record, read from its kiosk.db as IT would. */
function lastAuditRecord(): { kind: string; detail: Record<string, unknown> } | null {
  const db = new Database(join(root, 'kiosk', 'kiosk.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT kind, detail FROM audit_log ORDER BY seq DESC LIMIT 1').get() as
      { kind: string; detail: string } | undefined;
    return row ? { kind: row.kind, detail: JSON.parse(row.detail) as Record<string, unknown> } : null;
  } finally {
    db.close();
  }
}
let host: WebHost | null = null;
let page: Page;
const pageErrors: string[] = [];

const EVENT_NAME = 'Summer Night Open Air';

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(README_SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'door-e2e-'));
  issuerDir = join(root, 'issuer');
  issuerPort = await freePort();
  baseUrl = `http://${HOST}:${issuerPort}`;

  // The issuer's data, made with the built CLI exactly as the README tells an organiser.
  await issuerCli(issuerDir, 'init', '--base-url', baseUrl, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', EVENT_NAME, '--date', start, '--venue', 'Main Hall')).eid;
  const otherEid = (
    await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Winter Jazz Night', '--date', start, '--venue', 'Cellar')
  ).eid;
  const issue = async (event: string, holder: string, ...extra: string[]) =>
    (
      await issuerCli<{ tickets: { tid: string; qr: string }[] }>(
        issuerDir,
        'ticket',
        'issue',
        '--event',
        event,
        '--holder',
        holder,
        '--type',
        'Standard',
        ...extra,
      )
    ).tickets[0]!;
  tickets = {
    admitted: await issue(eid, 'Ada Lovelace'),
    revoked: await issue(eid, 'Mallory Revoked'),
    forgedFrom: await issue(eid, 'Grace Hopper'),
    mangled: await issue(eid, 'Zoë Müller'),
    offline: await issue(eid, 'Alan Turing'),
    expired: await issue(eid, 'Eddie Expired', '--expires', new Date(Date.now() - 3600_000).toISOString()),
    otherEvent: await issue(otherEid, 'Olga Otherday'),
    doubleRead5: await issue(eid, 'Dora Double'),
    doubleRead250: await issue(eid, 'Tess Trigger'),
    germanLayout: await issue(eid, 'Yannick Zyzik'),
    frenchLayout: await issue(eid, 'Aimée Quatremère'),
  };
  setupCode = (await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid)).setup_qr;
  issuer = await startIssuer(issuerDir, issuerPort);

  // The web host as `ticket-kiosk web` runs it, with a keyring service of its own so no real entry is touched.
  runtime = await startKioskRuntime({
    dataDir: join(root, 'kiosk'),
    keyringService: KEYRING_SERVICE,
    hidScanners: false,
    log: () => undefined,
  });
  host = await startWebHost({ core: runtime.core, host: HOST, port: 0, rendererDir: RENDERER_DIR, log: () => undefined });

  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // No pop-in animation: screenshots show the settled screen.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await openKioskPage(page, host);
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  // Each step on its own: one failing must not leave the others running.
  await page?.close().catch(() => undefined);
  await host?.close().catch(() => undefined);
  await runtime?.close().catch(() => undefined);
  await issuer?.stop().catch(() => undefined);
  await new KeychainApiKeyStore({ serviceName: KEYRING_SERVICE }).secrets.deleteAll().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Back to Ready (a verdict also gives way to the next scan, but waiting makes each step's start certain). */
async function dismissVerdict(): Promise<void> {
  await page.keyboard.press('Escape');
  await page.waitForSelector('#screen[data-screen="ready"]');
}

async function expectVerdict(verdict: 'admit' | 'refuse', reason: string): Promise<void> {
  await page.waitForSelector(`section[data-verdict="${verdict}"][data-reason="${reason}"]`);
}

/** A US scanner on a computer set to `layout`, typing `text` and Enter as real key events, as one scan. */
async function typeAsScanner(text: string, layout: TestLayout): Promise<void> {
  await typeAsScannerUnbroken(page, text, layout, DEFAULT_WEDGE_TIMING.endPauseMs);
}

/**
 * docs/kiosk.md "Calibration": a calibration code read at Ready is acted on only while a technician is
 * unlocked, on this kiosk without a PIN too: a technician's staff badge from the issuer's CLI unlocks until
 * the next ticket. Read through `layout` (a layout the kiosk reads right: US, or one it was calibrated for).
 */
async function unlockTechnician(layout: TestLayout): Promise<void> {
  const badge = await issuerCli<{ badge_qr: string }>(
    issuerDir,
    'staff',
    'badge',
    'issue',
    '--name',
    'Tia',
    '--role',
    'technician',
    '--event',
    eid,
  );
  await typeAsScanner(badge.badge_qr, layout);
  await page.waitForSelector('#screen[data-screen="ready"] [data-staff-role="technician"]');
}

/** A scanner reading one code twice: the code and Enter, then the same again `delayMs` after the first Enter. */
async function scanTwice(page: Page, text: string, delayMs: number): Promise<void> {
  await page.evaluate(
    async ([t, delay]) => {
      const typeOnce = (): void => {
        const keys = [...t].map((key) => new KeyboardEvent('keydown', { key, bubbles: true }));
        for (const event of keys) document.dispatchEvent(event);
        document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      };
      typeOnce();
      await new Promise((resolve) => setTimeout(resolve, delay));
      typeOnce();
    },
    [text, delayMs] as const,
  );
}

// Every step waits on the page for up to WAIT_MS, some several times: the steps get room for that.
test.describe.serial('the door, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('starts on the setup screen; the setup code enrolls it and Ready shows the event', async () => {
    await page.waitForSelector('#screen[data-screen="setup"][data-setup-mode="enroll"]');
    await shot(page, '01-setup');

    await scan(page, setupCode);
    await page.waitForSelector('#screen[data-screen="ready"]');
    expect(await page.textContent('[data-event-name]')).toBe(EVENT_NAME);
    await page.waitForSelector('[data-connection="online"]');
    await shot(page, '02-ready');
  });

  test('admits a valid ticket, then refuses it as already used', async () => {
    await scan(page, tickets.admitted.qr);
    await expectVerdict('admit', 'valid');
    expect(await page.textContent('[data-holder]')).toContain('Ada Lovelace');
    // The issuer answered: not an offline admit.
    expect(await page.$('[data-offline]')).toBeNull();
    await shot(page, '03-admit');
    await dismissVerdict();

    // Scanned again after the repeat window: a new scan (passed back over the barrier), not a double read.
    await page.waitForTimeout(PAST_REPEAT_WINDOW_MS);
    await scan(page, tickets.admitted.qr);
    await expectVerdict('refuse', 'already_used');
    await shot(page, '04-refuse-already-used');
    await dismissVerdict();
    const shown = await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tickets.admitted.tid);
    expect(shown.status).toBe('checked_in');
  });

  test('refuses a ticket revoked with the CLI while the issuer runs', async () => {
    await issuerCli(issuerDir, 'ticket', 'revoke', tickets.revoked.tid, '--reason', 'refunded');
    await scan(page, tickets.revoked.qr);
    await expectVerdict('refuse', 'revoked');
    await shot(page, '05-refuse-revoked');
    await dismissVerdict();
  });

  test('refuses a ticket for another event, and an expired one', async () => {
    await scan(page, tickets.otherEvent.qr);
    await expectVerdict('refuse', 'wrong_event');
    await shot(page, '06-refuse-wrong-event');
    await dismissVerdict();

    await scan(page, tickets.expired.qr);
    await expectVerdict('refuse', 'expired');
    await shot(page, '07-refuse-expired');
    await dismissVerdict();
  });

  test('refuses a forged ticket and reports it to the issuer, whose audit log holds it', async () => {
    test.setTimeout(DRAIN_WAIT_MS + 30_000);
    await scan(page, forge(tickets.forgedFrom.qr));
    await expectVerdict('refuse', 'invalid_signature');
    await shot(page, '08-refuse-forged');
    await dismissVerdict();

    // The report travels through the kiosk's queue, so it reaches the issuer soon after, not at once.
    type ExportRow = { outcome: string; tid: string | null };
    const until = Date.now() + DRAIN_WAIT_MS;
    let reported: ExportRow | undefined;
    while (!reported && Date.now() < until) {
      const rows = await issuerCli<ExportRow[]>(issuerDir, 'checkins', 'export', '--event', eid, '--format', 'json');
      reported = rows.find((row) => row.outcome === 'invalid_signature' && row.tid === tickets.forgedFrom.tid);
      if (!reported) await new Promise((r) => setTimeout(r, 500));
    }
    expect(reported).toBeDefined();
    // The real ticket the forgery was made from is untouched.
    expect((await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tickets.forgedFrom.tid)).status).toBe('valid');
  });

  test('refuses text that is not a ticket', async () => {
    await scan(page, 'HELLO-WORLD-12345');
    await expectVerdict('refuse', 'not_a_ticket');
    await shot(page, '09-refuse-not-a-ticket');
    await dismissVerdict();
  });

  test('tells a scanner typing on a German keyboard layout apart from a bad ticket', async () => {
    const mangled = asTypedOnGermanLayout(tickets.mangled.qr);
    expect(mangled).not.toBe(tickets.mangled.qr);
    await scan(page, mangled);
    await expectVerdict('refuse', 'layout_mismatch');
    expect(await page.textContent('[data-reason-text]')).toMatch(/layout/i);
    await shot(page, '10-refuse-layout-mismatch');
    await dismissVerdict();
    // Nothing was checked in: the kiosk never acted on the mangled text.
    expect((await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tickets.mangled.tid)).status).toBe('valid');
    // The refusal is in the kiosk's audit log like every other (docs/kiosk.md "The kiosk's audit log").
    await expect
      .poll(() => lastAuditRecord())
      .toMatchObject({ kind: 'verdict', detail: { reason: 'layout_mismatch', keyboard_layout: 'de' } });
  });

  test('admits offline while the issuer is down, with one scan waiting', async () => {
    await page.waitForSelector('[data-pending-count="0"]');
    await issuer!.stop();
    issuer = null;

    await scan(page, tickets.offline.qr);
    await page.waitForSelector('section[data-verdict="admit"][data-reason="valid"] [data-offline]');
    await shot(page, '11-admit-offline');
    await dismissVerdict();
    await page.waitForSelector('[data-connection="offline"]');
    await page.waitForSelector('[data-pending-count="1"]');
    await shot(page, '12-ready-offline');
  });

  test('drains the queue once the issuer is back on the same port and data', async () => {
    test.setTimeout(DRAIN_WAIT_MS + 30_000);
    issuer = await startIssuer(issuerDir, issuerPort);
    await page.waitForSelector('[data-pending-count="0"]', { timeout: DRAIN_WAIT_MS });
    await page.waitForSelector('[data-connection="online"]');
    await shot(page, '13-ready-back-online');
    const shown = await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tickets.offline.tid);
    expect(shown.status).toBe('checked_in');
  });

  test('looks up a ticket status with F2', async () => {
    await page.keyboard.press('F2');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.fill('[data-lookup-input]', tickets.admitted.tid);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-lookup-result][data-status="checked_in"]');
    await shot(page, '14-lookup');

    await page.fill('[data-lookup-input]', tickets.revoked.tid);
    await page.click('[data-action="lookup-submit"]');
    await page.waitForSelector('[data-lookup-result][data-status="revoked"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  for (const [label, name, delayMs] of [
    ['5 ms', 'doubleRead5', 5],
    ['250 ms', 'doubleRead250', 250],
  ] as const) {
    test(`a double read is one scan: the duplicate typed ${label} after the first Enter keeps the ADMIT`, async () => {
      const ticket = tickets[name];
      await scanTwice(page, ticket.qr, delayMs);
      await expectVerdict('admit', 'valid');
      // The discreet mark, on the same ADMIT.
      await page.waitForSelector('section[data-verdict="admit"] [data-read-again]');
      // It stays an ADMIT: no "already used" replaces it while it is on screen.
      await page.waitForTimeout(1000);
      expect(await page.$('section[data-verdict="refuse"]')).toBeNull();
      expect(await page.textContent('[data-holder]')).toContain(name === 'doubleRead5' ? 'Dora Double' : 'Tess Trigger');
      const repeat = runtime!.core.readLog().find((entry) => entry.kind === 'repeat_read' && entry.tid === ticket.tid);
      expect(repeat?.origin).toBe('window');
      const state = await runtime!.core.getState();
      expect(state.last_verdicts.filter((verdict) => verdict.ticket?.tid === ticket.tid)).toHaveLength(1);
      expect((await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', ticket.tid)).status).toBe('checked_in');
      if (name === 'doubleRead5') await shot(page, '15-admit-read-again');
      await dismissVerdict();
    });
  }

  for (const [language, layout, name, described] of [
    ['German', 'de', 'germanLayout', /German QWERTZ.*y and z swapped.*- typed as ß/],
    ['French', 'fr', 'frenchLayout', /French AZERTY.*a and q swapped/],
  ] as const) {
    test(`the calibration code learns a US scanner on a ${language} layout (real key events): the layout message before, ADMIT after`, async () => {
      const ticket = tickets[name];
      expect(asTypedOn(layout, ticket.qr)).not.toBe(ticket.qr);
      await typeAsScanner(ticket.qr, layout);
      await expectVerdict('refuse', 'layout_mismatch');
      await dismissVerdict();

      // A technician unlocks (the badge read on a US layout: before calibration this one would garble it too).
      await unlockTechnician('us');
      await typeAsScanner(CALIBRATION_CODE, layout);
      await page.waitForSelector('[data-scanner-diagnosis="learned"]');
      const diagnosis = (await page.textContent('[data-scanner-diagnosis]')) ?? '';
      expect(diagnosis).toMatch(described);
      expect(diagnosis).toMatch(/keyboard wedge/);
      expect(diagnosis).toMatch(/Enter \(CR\)/);
      expect(diagnosis).toMatch(/ms per character/);
      await shot(page, `16-calibrated-${layout}`);
      await page.click('[data-action="close-diagnosis"]');

      await typeAsScanner(ticket.qr, layout);
      await expectVerdict('admit', 'valid');
      expect((await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', ticket.tid)).status).toBe('checked_in');
      await dismissVerdict();

      // Reset from the scanner check: the next mangled code is the layout message again.
      await unlockTechnician(layout);
      await typeAsScanner(CALIBRATION_CODE, layout);
      await page.click('[data-scanner-diagnosis] [data-action="reset-calibration"]');
      await page.waitForFunction(() => !document.querySelector('[data-scanner-diagnosis]'));
      expect((await runtime!.core.getState()).calibration).toBeNull();
      await typeAsScanner(tickets.admitted.qr, layout);
      await expectVerdict('refuse', 'layout_mismatch');
      await dismissVerdict();
    });
  }

  test('raised no error in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

/** The page's DOM as the functions passed to page.evaluate see it (the Node build has no DOM lib). */
declare const document: { dispatchEvent(event: unknown): boolean; querySelector(selector: string): unknown };
declare class KeyboardEvent {
  constructor(type: string, init: { key: string; bubbles: boolean });
}
