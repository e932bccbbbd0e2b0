/**
 * Every screen in German, in real Chromium: no visible word may be English
 * (docs/kiosk.md "Languages"). The kiosk's screens run on the dev page with
 * the fake kiosk (renderer/dev/fake-kiosk.ts), which can put the door in any
 * state at once; the admin dashboard runs on a real issuer (the built CLI),
 * in a browser whose language is German.
 *
 * The check: no text node, and no label a person reads (aria-label,
 * placeholder, title, alt), equals an English catalogue text that differs
 * from the German one; a text with placeholders counts when the whole node
 * matches it with anything in the placeholders. Text inside an element whose
 * `lang` is not German (the kiosk's second-language line, the language menu's
 * names) is the other language on purpose and is skipped.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/languages.e2e.test.ts
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { en as dashboardEn } from '../../dashboard/messages/en.js';
import { de as dashboardDe } from '../../dashboard/messages/de.js';
import { de as kioskDe } from '../../renderer/messages/de.js';
import { en as kioskEn } from '../../renderer/messages/en.js';
import { LOCAL_REFUSALS } from '../../renderer/view/verdict-view-model.js';
import { REFUSAL_REASONS } from '../../protocol/index.js';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { issuerCli, LOOPBACK, ROOT, scanInPage, startIssuer, type RunningIssuer } from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';

const WAIT_MS = 30_000;
const DEV_PAGE = join(ROOT, 'dist', 'kiosk-page-dev');

/**
 * English texts that may show on a German screen, each with its reason. Keep it short: a word that
 * is the same in German is already left out (its German text equals the English one).
 */
const ALLOWED_ENGLISH: Record<string, string> = {
  // (none yet: add `'text': 'why'` for a proper noun or product name that must stay English)
};

/** The English texts (and patterns for those with placeholders) a German screen must not show. */
function englishOnly(en: Readonly<Record<string, string>>, de: Readonly<Record<string, string>>): { exact: string[]; patterns: string[] } {
  const exact: string[] = [];
  const patterns: string[] = [];
  for (const [key, text] of Object.entries(en)) {
    if (key.startsWith('meta.') || text === de[key] || Object.hasOwn(ALLOWED_ENGLISH, text.trim())) continue;
    if (/\{\w+\}/.test(text)) {
      const source = text
        .trim()
        .split(/\{\w+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.+');
      // A pattern of placeholders and punctuation only would match anything.
      if (/[A-Za-z]{3,}/.test(source)) patterns.push(`^${source}$`);
    } else if (text.trim() !== '') exact.push(text.trim());
  }
  return { exact, patterns };
}

/**
 * The visible English on the page now: text nodes and the labels people read, outside other-language
 * elements. Runs in the page (a string: this file is type-checked without the DOM).
 */
const FIND_ENGLISH = `({ exact, patterns }) => {
  const exactSet = new Set(exact);
  const regexes = patterns.map((source) => new RegExp(source, 's'));
  const isEnglish = (text) => exactSet.has(text) || regexes.some((regex) => regex.test(text));
  const otherLanguage = (element) => !(element.closest('[lang]')?.getAttribute('lang') ?? '').startsWith('de');
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? '';
    const parent = node.parentElement;
    if (text === '' || !parent || otherLanguage(parent) || !parent.checkVisibility()) continue;
    if (isEnglish(text)) found.push(text);
  }
  for (const element of document.body.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
    if (otherLanguage(element) || !element.checkVisibility()) continue;
    for (const name of ['aria-label', 'placeholder', 'title', 'alt']) {
      const text = element.getAttribute(name)?.trim();
      if (text && isEnglish(text)) found.push(name + '="' + text + '"');
    }
  }
  // A closed <select> shows its chosen option, which checkVisibility() does not count as visible.
  for (const select of document.body.querySelectorAll('select')) {
    const option = select.selectedOptions[0];
    const text = option?.textContent?.trim();
    if (option && text && !otherLanguage(option) && select.checkVisibility() && isEnglish(text)) found.push('<option>' + text + '</option>');
  }
  if (isEnglish(document.title)) found.push('<title>' + document.title + '</title>');
  return found;
}`;

async function englishOnScreen(page: Page, english: { exact: string[]; patterns: string[] }): Promise<string[]> {
  return page.evaluate(`(${FIND_ENGLISH})(${JSON.stringify(english)})`) as Promise<string[]>;
}

/** Waits until an expression is true in the page (page.waitForFunction would evaluate it in the page, which the CSP forbids). */
async function waitInPage(page: Page, expression: string): Promise<void> {
  const until = Date.now() + WAIT_MS;
  // A navigation (the language menu reloads the page) ends an evaluation: that counts as "not yet".
  while (!(await page.evaluate(expression).catch(() => false))) {
    if (Date.now() > until) throw new Error(`still not true after ${WAIT_MS} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Each part's steps build on each other (one page, one state after another).
test.describe.configure({ mode: 'serial' });

test.describe('the kiosk in German', () => {
  let server: Server | null = null;
  let page: Page;
  const english = englishOnly(kioskEn, kioskDe);
  const seen: string[] = [];
  const check = async (what: string): Promise<void> => {
    seen.push(what);
    expect(await englishOnScreen(page, english), what).toEqual([]);
  };
  const scan = (text: string) => scanInPage(page, text);
  const fake = <T>(body: string): Promise<T> => page.evaluate(body) as Promise<T>;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    // The dev page (fake kiosk) is not part of npm run build: build it here (a few seconds).
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'vite'),
      ['build', '--config', 'renderer/vite.config.ts', '--mode', 'dev', '--logLevel', 'warn'],
      {
        cwd: ROOT,
        stdio: 'pipe',
      },
    );
    const types: Record<string, string> = {
      '.html': 'text/html',
      '.js': 'text/javascript',
      '.css': 'text/css',
      '.map': 'application/json',
    };
    server = createServer((request, response) => {
      const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
      try {
        const file = join(DEV_PAGE, path.endsWith('/') ? `${path}index.html` : path);
        response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, LOOPBACK, resolve));
    const address = server.address() as { port: number };
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`http://${LOOPBACK}:${address.port}/dev/`);
    await page.waitForSelector('#screen[data-screen="setup"]');
    await fake('window.fakeKiosk.setLanguage("de", null)');
    await waitInPage(page, `document.documentElement.lang === 'de'`);
  });

  test.afterAll(async () => {
    await page?.close().catch(() => undefined);
    server?.close();
  });

  test('Setup, its errors and the re-enroll question', async () => {
    expect(await page.title()).toBe(kioskDe['app.title']);
    await check('setup');
    await scan(await fake<string>('window.fakeKiosk.makeSetupCode({ event_name: "Expired", gate_id: "B" })'));
    await page.waitForSelector('[data-setup-message]');
    await check('setup: code used or expired');
    await scan(await fake<string>('window.fakeKiosk.makeTicketCode({ tid: "T0" })'));
    const ticketScanned = JSON.stringify(kioskDe['setup.error.ticket_scanned']);
    await waitInPage(page, `document.querySelector('[data-setup-message]')?.textContent.endsWith(${ticketScanned})`);
    await check('setup: a ticket scanned first');
    await scan(await fake<string>('window.fakeKiosk.makeSetupCode({ event_name: "Sommernacht", gate_id: "B" })'));
    await page.waitForSelector('#screen[data-screen="ready"]');
    await check('ready, nothing scanned yet');
    await fake('window.fakeKiosk.change({ pending_scans: 3 })');
    await scan(await fake<string>('window.fakeKiosk.makeSetupCode({ event_name: "Herbstfest", gate_id: "Nord" })'));
    await page.waitForSelector('#screen[data-screen="setup"][data-setup-mode="confirm"]');
    await check('setup: switch to another event?');
    await page.click('[data-action="cancel-re-enroll"]');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test('every verdict and its reason', async () => {
    const ticket = await fake<string>('window.fakeKiosk.makeTicketCode({ tid: "T1", hn: "Zoë Müller", tt: "VIP" })');
    await scan(ticket);
    await page.waitForSelector('section[data-verdict="admit"]');
    expect(await page.textContent('.verdict__word')).toBe(kioskDe['verdict.admit']);
    await check('admit');
    const reasons = [...REFUSAL_REASONS, ...LOCAL_REFUSALS].filter((reason) => Object.hasOwn(kioskEn, `reason.${reason}`));
    for (const [index, reason] of reasons.entries()) {
      const verdict = {
        kind: 'refuse',
        reason,
        decided_at: new Date(Date.now() + index).toISOString(),
        offline: false,
        decided_by: 'issuer',
        ticket: { tid: `R${index}`, eid: 'EVT1', holder_name: 'Zoë Müller', event_name: 'Winterjazz' },
        first_used_at: '2026-07-18T19:42:00Z',
      };
      await fake(`window.fakeKiosk.forcedVerdict = ${JSON.stringify(verdict)}`);
      await scan(ticket);
      await page.waitForSelector(`section[data-verdict="refuse"][data-reason="${reason}"]`);
      await check(`refuse: ${reason}`);
    }
  });

  test('offline, waiting scans, double admissions, and the second language on attendee screens', async () => {
    await page.keyboard.press('Escape');
    await fake(
      'window.fakeKiosk.change({ connection: "offline", pending_scans: 12, double_admissions: [{ tid: "X", eid: "EVT1", admitted_here_at: "2026-07-18T19:50:00Z", first_checked_in_at: "2026-07-18T19:42:00Z" }] })',
    );
    await scan(await fake<string>('window.fakeKiosk.makeTicketCode({ tid: "T3", hn: "Ana Ruiz", tt: "Standard" })'));
    await page.waitForSelector('section[data-verdict="admit"] [data-offline]');
    await check('admit offline');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-double-admissions]');
    await check('ready offline, 12 waiting, a double admission');

    await fake('window.fakeKiosk.setLanguage("de", "en")');
    await page.waitForSelector('.ready__prompt [data-second-language="en"]');
    expect(await page.textContent('[data-second-language="en"]')).toBe(kioskEn['ready.prompt']);
    await check('ready with English as the second language');
    await scan(await fake<string>('window.fakeKiosk.makeTicketCode({ tid: "T4", hn: "Li Wei" })'));
    await page.waitForSelector('section[data-verdict="admit"] [data-second-language="en"]');
    expect(await page.textContent('section[data-verdict] [data-second-language]')).toContain(kioskEn['verdict.admit']);
    await check('admit with English as the second language');
    await fake('window.fakeKiosk.setLanguage("de", null)');
    await waitInPage(page, `document.querySelector('[data-second-language]') === null`);
    await page.keyboard.press('Escape');
  });

  test('the status lookup, the scanner check and a scanner no longer authorised', async () => {
    await fake('window.fakeKiosk.change({ connection: "online" })');
    await page.keyboard.press('F2');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await check('lookup, empty');
    await page.fill('[data-lookup-input]', 'T1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-lookup-result][data-status="checked_in"]');
    await check('lookup: already used');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');

    const calibration = {
      diagnosis: {
        input_path: 'window',
        layout: 'de',
        differences: [],
        collisions: [],
        translation: 'learned',
        terminator: 'cr',
        prefix: [],
        suffix: [],
        characters: 24,
        ms_per_character: 4,
        ms_per_code: 96,
        hid_layout: null,
        symbology_id: null,
        calibrated_at: new Date().toISOString(),
      },
      translating: ['window'],
    };
    await fake(`window.fakeKiosk.change({ calibration: ${JSON.stringify(calibration)} })`);
    await page.waitForSelector('[data-scanner-diagnosis]');
    await check('ready: the scanner check');
    await page.click('[data-action="close-diagnosis"]');

    await fake('window.fakeKiosk.change({ authorised: false })');
    await page.waitForSelector('[data-unauthorised]');
    await check('ready: scanner no longer authorised');
    expect(seen.length).toBeGreaterThan(20);
  });
});

test.describe('the admin dashboard in German', () => {
  let root: string;
  let issuer: RunningIssuer | null = null;
  let page: Page;
  let baseUrl: string;
  let adminToken: string;
  const english = englishOnly(dashboardEn, dashboardDe);
  const check = async (what: string): Promise<void> => {
    expect(await englishOnScreen(page, english), what).toEqual([]);
  };

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(240_000);
    root = mkdtempSync(join(tmpdir(), 'languages-e2e-'));
    const dataDir = join(root, 'issuer');
    const port = await freePort();
    baseUrl = `http://${LOOPBACK}:${port}`;
    await issuerCli(dataDir, 'init', '--base-url', baseUrl, '--name', 'Hafenfest');
    adminToken = (await issuerCli<{ admin_token: string }>(dataDir, 'admin-token', 'reset')).admin_token;
    const start = new Date(Date.now() - 3600_000).toISOString();
    const eid = (
      await issuerCli<{ eid: string }>(dataDir, 'event', 'create', '--name', 'Freitagabend', '--date', start, '--venue', 'Pier 4')
    ).eid;
    const other = (
      await issuerCli<{ eid: string }>(dataDir, 'event', 'create', '--name', 'Samstagsmatinee', '--date', start, '--venue', 'Pier 4')
    ).eid;
    const issue = async (event: string, holder: string): Promise<string> =>
      (await issuerCli<{ tickets: { tid: string }[] }>(dataDir, 'ticket', 'issue', '--event', event, '--holder', holder, '--type', 'VIP'))
        .tickets[0]!.tid;
    const ada = await issue(eid, 'Ada Lovelace');
    const grace = await issue(eid, 'Grace Hopper');
    const olga = await issue(other, 'Olga Andere');
    await issuerCli(dataDir, 'ticket', 'revoke', grace, '--reason', 'Erstattung');
    issuer = await startIssuer(dataDir, port);
    const { token } = decodeSetupCode(
      (await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', 'Nord')).setup_qr,
    );
    const scannerId = randomUUID();
    const enrolled = (await (
      await fetch(`${baseUrl}/api/v1/scanners/enroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, scanner_id: scannerId, scanner_name: 'Nordtür' }),
      })
    ).json()) as { api_key: string };
    const checkIn = (tid: string, scannedAt = new Date()) =>
      fetch(`${baseUrl}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${enrolled.api_key}` },
        body: JSON.stringify({ tid, eid, scanned_at: scannedAt.toISOString(), scanner_id: scannerId, idempotency_key: randomUUID() }),
      });
    // An admit, a revoked and a wrong-event ticket, and a late offline scan: every alert kind the page words.
    await checkIn(ada);
    await checkIn(grace);
    await checkIn(olga);
    await checkIn(ada, new Date(Date.now() - 4 * 60_000));
    // The browser's language is German: navigator.languages is ['de-DE'].
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 1440, height: 1000 } });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
  });

  test.afterAll(async () => {
    await page
      ?.context()
      .close()
      .catch(() => undefined);
    await issuer?.stop().catch(() => undefined);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('sign-in, the live page, a lookup and the dialogs', async () => {
    await page.goto(`${baseUrl}/admin`);
    await page.locator('#admin-token').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    await check('sign-in');
    await page.click('button[type=submit]');
    await waitInPage(page, `document.getElementById('sign-in-message')?.textContent !== ''`);
    await check('sign-in: no token typed');
    await page.fill('#admin-token', 'tva_not-the-token-of-this-issuer-at-all');
    await page.click('button[type=submit]');
    const wrongToken = JSON.stringify(dashboardDe['signin.wrong_token']);
    await waitInPage(page, `document.getElementById('sign-in-message')?.textContent === ${wrongToken}`);
    await page.fill('#admin-token', adminToken);
    await page.click('button[type=submit]');
    await page.waitForSelector('#alert-list li[data-kind="wrong_event"]');
    await page.waitForSelector('#alert-list li[data-kind="offline_double_admission"]');
    await check('the live page');

    await page.fill('#lookup-query', 'Lovelace');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#lookup-results li[data-tid]');
    await check('lookup result');
    await page.fill('#lookup-query', 'Niemand');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#lookup-results p.empty');
    await check('lookup: nothing found');

    await page.click('#create-setup');
    await page.waitForSelector('#setup-dialog[open]');
    await check('the setup QR dialog');
    await page.click('#close-setup');
    await page.click('#scanner-table button.danger');
    await page.waitForSelector('#revoke-scanner-dialog[open]');
    await check('revoke a scanner?');
    await page.click('#revoke-scanner-dialog button.secondary');
  });

  test('the language menu switches and is remembered', async () => {
    await page.selectOption('#language-select', 'fr');
    await waitInPage(page, `document.documentElement.lang === 'fr'`);
    await page.waitForSelector('#tiles .tile');
    expect(await page.textContent('#sign-out')).toBe('Se déconnecter');
    await page.reload();
    await page.waitForSelector('#sign-out');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    await page.selectOption('#language-select', 'de');
    await waitInPage(page, `document.documentElement.lang === 'de'`);
  });
});
