/**
 * Finding a ticket at the kiosk, end to end (docs/kiosk.md "Finding a ticket"): a real issuer (the built
 * `ticket-issuer` CLI, a child process, plain HTTP on loopback), a supervisor's kiosk core behind the web host
 * with its API key in the real OS keyring, and the built screens in real Chromium. Staff unlock with the PIN,
 * type a name (never taken as a scan), check the found ticket in by hand with a reason, and the door shows
 * ADMIT; the issuer keeps the reason. A party ticket's result shows its counts and handouts, and its manual
 * check-in asks how many come in. Offline, the dialog says the search needs the issuer.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/ticket-search.e2e.test.ts
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
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

/** The page's globals as the function passed to $eval sees them (the Node build has no DOM lib). */
declare const window: { readonly innerWidth: number };
declare const document: { readonly documentElement: { readonly scrollWidth: number } };
declare function getComputedStyle(element: unknown): { readonly lineHeight: string; readonly fontSize: string };

const SHOTS = join(ROOT, 'test-results', 'e2e');
/** docs/kiosk-screens.md "Finding a ticket": a party ticket's result in each language, copied there only with UPDATE_SCREENSHOTS=1. */
const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');
/** 80 characters (the issuer's longest name) with word breaks, and 80 with none (test/e2e/holder-names.e2e.test.ts). */
const LONG_NAME = 'Maximiliane Alexandrina Konstantinopoulou-Wolfeschlegelsteinhausen von Ostfriesl';
const LONG_WORD = 'Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewissenhaftschaferswesen';
const WAIT_MS = 30_000;
const PIN = '2468';

let root: string;
let issuerDir: string;
let port: number;
let eid: string;
let issuer: RunningIssuer | null = null;
let browser: Browser | null = null;
let door: KioskDoor | null = null;
const pageErrors: string[] = [];
const tids: Record<string, string> = {};

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'ticket-search-e2e-'));
  issuerDir = join(root, 'issuer');
  port = await freePort();
  await issuerCli(issuerDir, 'init', '--base-url', `http://${HOST}:${port}`, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Search Night', '--date', start, '--venue', 'Hall')).eid;
  for (const holder of ['Zoë Ångström', 'Zoe Smith']) {
    const issued = await issuerCli<{ tickets: { tid: string }[] }>(
      issuerDir,
      'ticket',
      'issue',
      '--event',
      eid,
      '--holder',
      holder,
      '--type',
      'VIP',
    );
    tids[holder] = issued.tickets[0]!.tid;
  }
  for (const holder of [LONG_NAME, LONG_WORD]) {
    const issued = await issuerCli<{ tickets: { tid: string }[] }>(
      issuerDir,
      'ticket',
      'issue',
      '--event',
      eid,
      '--holder',
      holder,
      '--type',
      'Standard',
      '--note',
      'Wheelchair user: side door',
    );
    tids[holder] = issued.tickets[0]!.tid;
  }
  // docs/kiosk.md "Finding a ticket": a party of 5 with the type's wristband and its own 2 drink vouchers.
  await issuerCli(issuerDir, 'event', 'ticket-type', 'set', '--event', eid, '--type', 'Family', '--handout', 'wristband');
  const family = await issuerCli<{ tickets: { tid: string }[] }>(
    issuerDir,
    'ticket',
    'issue',
    '--event',
    eid,
    '--holder',
    'Família Costa',
    '--type',
    'Family',
    '--party',
    '5',
    '--handout',
    '2 drink voucher',
  );
  tids['Família Costa'] = family.tickets[0]!.tid;
  issuer = await startIssuer(issuerDir, port);
  browser = workerBrowser;
  door = await openKioskDoor(browser, {
    dataDir: join(root, 'kiosk'),
    keyringService: `ticket-kiosk-e2e-search-${process.pid}`,
    waitMs: WAIT_MS,
    onPageError: (error) => pageErrors.push(error),
  });
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await door?.page.close().catch(() => undefined);
  if (door) await closeKioskDoors([door]);
  await issuer?.stop().catch(() => undefined);
  if (root) rmSync(root, { recursive: true, force: true });
});

test.describe.serial('finding a ticket at the kiosk (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a supervisor finds a ticket by name and checks it in by hand with a reason: ADMIT, and the issuer keeps why', async () => {
    const { page, runtime } = door!;
    const { setup_qr } = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid, '--role', 'supervisor');
    await page.waitForSelector('#screen[data-screen="setup"]');
    await scan(page, setup_qr);
    await page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
    expect((await runtime.core.setStaffPin(PIN)).type).toBe('pin_set');
    await runtime.core.lockStaff();

    await page.click('[data-action="open-staff"]');
    await enterStaffPin(page, PIN);
    await page.click('[data-action="staff-search"]');
    await page.waitForSelector('[data-search-dialog][data-search-step="search"] #ticket-search-input');
    // Typed fast, like a scanner would: the field is a typing target, so no scan is made of it.
    await page.keyboard.type('zoe ang', { delay: 5 });
    await page.keyboard.press('Enter');
    const result = page.locator(`[data-search-results] [data-tid="${tids['Zoë Ångström']}"]`);
    await expect(result).toBeVisible({ timeout: WAIT_MS });
    await expect(page.locator('[data-search-results] li.search__result')).toHaveCount(1);
    await expect(result).toHaveAttribute('data-status', 'valid');
    await expect(result).toContainText('Zoë Ångström');
    await expect(result).toContainText('Type: VIP');
    expect((await runtime.core.getState()).last_verdicts).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'ticket-search-01-results.png') });

    await result.locator('[data-action="search-check-in"]').click();
    await page.waitForSelector('[data-search-step="reason"] #ticket-search-reason');
    // The reason is required: an empty one is refused on the spot, and nothing is sent.
    await page.click('[data-action="search-confirm"]');
    await expect(page.locator('[data-search-problem]')).toHaveText(/A reason is required/);
    await page.fill('#ticket-search-reason', 'Phone battery dead, ID checked');
    await page.screenshot({ path: join(SHOTS, 'ticket-search-02-reason.png') });
    await page.click('[data-action="search-confirm"]');

    await page.waitForSelector('section[data-verdict="admit"]', { timeout: WAIT_MS });
    await expect(page.locator('[data-search-dialog]')).toBeHidden();
    expect(await page.textContent('section[data-verdict="admit"] [data-holder]')).toContain('Zoë Ångström');
    await page.screenshot({ path: join(SHOTS, 'ticket-search-03-admit.png') });
    const history = await issuerCli<Array<{ tid: string }>>(issuerDir, 'checkins', 'export', '--event', eid, '--format', 'json');
    expect(JSON.stringify(history.filter((row) => row.tid === tids['Zoë Ångström']))).toContain('Phone battery dead, ID checked');
    expect((await runtime.core.getState()).pending_scans).toBe(0);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test("80-character names in the results: the door's holder-name element, two lines at most inside the panel, the whole name in its title; the note under it", async () => {
    const { page } = door!;
    await page.click('[data-action="open-staff"]');
    if (await page.locator('[data-staff-dialog][data-staff-mode="unlock"]').isVisible()) await enterStaffPin(page, PIN);
    await page.click('[data-action="staff-search"]');
    for (const [query, name] of [
      ['maximiliane', LONG_NAME],
      ['wolfeschlegelsteinhausenberger', LONG_WORD],
    ] as const) {
      expect([...name].length).toBe(80);
      await page.fill('#ticket-search-input', query);
      await page.click('[data-action="search-submit"]');
      const result = page.locator(`[data-search-results] [data-tid="${tids[name]}"]`);
      await expect(result).toBeVisible({ timeout: WAIT_MS });
      await expect(page.locator('[data-search-results] li.search__result')).toHaveCount(1);
      await expect(result.locator('[data-search-notes]')).toHaveText('Note: Wheelchair user: side door');
      const layout = await result.locator('[data-search-holder] [data-holder-name]').evaluate((element) => {
        const box = element.getBoundingClientRect();
        const line = element.parentElement!.getBoundingClientRect();
        const style = getComputedStyle(element);
        return {
          tag: element.tagName.toLowerCase(),
          text: element.textContent,
          title: element.getAttribute('title'),
          dir: element.getAttribute('dir'),
          lines: Math.round(box.height / parseFloat(style.lineHeight)),
          fontPx: parseFloat(style.fontSize),
          lineFontPx: parseFloat(getComputedStyle(element.parentElement!).fontSize),
          truncated: element.scrollHeight > element.clientHeight + 1,
          inside: box.left >= line.left - 1 && box.right <= line.right + 1 && box.right <= window.innerWidth,
          pageOverflow: document.documentElement.scrollWidth > window.innerWidth,
        };
      });
      // On a 1280 × 800 screen the results are as wide as the panel: both names fit whole, no ellipsis.
      expect(layout).toMatchObject({
        tag: 'bdi',
        text: name,
        title: name,
        dir: 'auto',
        truncated: false,
        inside: true,
        pageOverflow: false,
      });
      expect(layout.lines).toBeGreaterThanOrEqual(1);
      expect(layout.lines).toBeLessThanOrEqual(2);
      // Shrunk with its length, not past the floor (0.55 of the line's size, 18 px): docs/kiosk.md "Holder names".
      expect(layout.fontPx).toBeLessThan(layout.lineFontPx);
      expect(layout.fontPx).toBeGreaterThanOrEqual(Math.max(0.55 * layout.lineFontPx, 18) - 0.5);
      await page.screenshot({ path: join(SHOTS, `ticket-search-05-long-name-${query.length}.png`) });
    }
    // The reason step names the ticket with the same element.
    await page.locator(`[data-search-results] [data-tid="${tids[LONG_WORD]}"] [data-action="search-check-in"]`).click();
    const target = page.locator(`[data-search-target="${tids[LONG_WORD]}"] [data-holder-name]`);
    await expect(target).toHaveAttribute('title', LONG_WORD);
    await page.click('[data-action="search-cancel"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test("a party ticket's result shows its counts and handouts; its manual check-in asks how many: 3 of 5 in, 2 to come", async () => {
    const { page } = door!;
    const tid = tids['Família Costa']!;
    await page.click('[data-action="open-staff"]');
    if (await page.locator('[data-staff-dialog][data-staff-mode="unlock"]').isVisible()) await enterStaffPin(page, PIN);
    await page.click('[data-action="staff-search"]');
    await page.fill('#ticket-search-input', 'familia costa');
    await page.click('[data-action="search-submit"]');
    const result = page.locator(`[data-search-results] [data-tid="${tid}"]`);
    await expect(result).toBeVisible({ timeout: WAIT_MS });
    await expect(result.locator('[data-search-party]')).toHaveText(/Ticket for 5 people · 0 in so far, 5 may still come/);
    await expect(result.locator('[data-search-handout]')).toHaveText(['wristband: 0 of 1 given', 'drink voucher: 0 of 2 given']);
    // Readable from two metres: the lines are at least the size of the result's other lines, and bold.
    const details = await result.locator('.lookup__details').evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
    for (const part of ['[data-search-handouts]', '[data-search-party]']) {
      const size = await result.locator(part).evaluate((element) => {
        const style = getComputedStyle(element);
        return { px: parseFloat(style.fontSize), weight: (style as unknown as { fontWeight: string }).fontWeight };
      });
      expect(size.px, part).toBeGreaterThanOrEqual(details);
      expect(Number(size.weight), part).toBeGreaterThanOrEqual(700);
    }
    await page.screenshot({ path: join(SHOTS, 'ticket-search-06-party-handouts.png') });

    await result.locator('[data-action="search-check-in"]').click();
    await page.waitForSelector('[data-search-step="reason"] #ticket-search-reason');
    await expect(page.locator('[data-search-people] [data-action="search-people"]')).toHaveText(['1', '2', '3', '4', '5']);
    await page.fill('#ticket-search-reason', 'Phones dead, booking seen');
    // No number picked: asked for one, nothing is sent.
    await page.click('[data-action="search-confirm"]');
    await expect(page.locator('[data-search-problem]')).toHaveText(/Pick how many of the party come in/);
    await page.click('[data-action="search-people"][data-people="3"]');
    await expect(page.locator('[data-action="search-people"][data-people="3"]')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('[data-action="search-people"][data-people="3"]')).toHaveText('✓ 3');
    // The reason typed before the pick is kept.
    await expect(page.locator('#ticket-search-reason')).toHaveValue('Phones dead, booking seen');
    await page.screenshot({ path: join(SHOTS, 'ticket-search-07-party-people.png') });
    const before = await issuerCli<Array<{ tid: string }>>(issuerDir, 'checkins', 'export', '--event', eid, '--format', 'json');
    expect(before.filter((row) => row.tid === tid)).toEqual([]);
    await page.click('[data-action="search-confirm"]');

    await page.waitForSelector('section[data-verdict="admit"]', { timeout: WAIT_MS });
    await expect(page.locator('.verdict__reason')).toHaveText('3 of 5 in, 2 to come');
    await page.screenshot({ path: join(SHOTS, 'ticket-search-08-party-admit.png') });
    const shown = await issuerCli<{ party?: { inside: number; admitted_total: number } }>(issuerDir, 'ticket', 'show', tid);
    expect(shown.party).toMatchObject({ inside: 3, admitted_total: 3 });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
  });

  test("the party ticket's result in all four languages: counts by each language's plural rule", async () => {
    const { page, runtime } = door!;
    const result = page.locator(`[data-search-results] [data-tid="${tids['Família Costa']}"]`);
    for (const [language, party, handouts] of [
      ['en', 'Ticket for 5 people · 3 in so far, 2 may still come', ['wristband: 0 of 1 given', 'drink voucher: 0 of 2 given']],
      [
        'de',
        'Ticket für 5 Personen · Bisher 3 drin, 2 dürfen noch kommen',
        ['wristband: 0 von 1 ausgegeben', 'drink voucher: 0 von 2 ausgegeben'],
      ],
      [
        'fr',
        'Billet pour 5 personnes · 3 entrés jusqu’ici, 2 peuvent encore venir',
        ['wristband : 0 sur 1 remis', 'drink voucher : 0 sur 2 remis'],
      ],
      [
        'es',
        'Entrada para 5 personas · 3 dentro hasta ahora, pueden venir 2 más',
        ['wristband: 0 de 1 entregado', 'drink voucher: 0 de 2 entregados'],
      ],
    ] as const) {
      await runtime.core.setLanguage(language, null);
      await page.click('[data-action="open-staff"]');
      if (await page.locator('[data-staff-dialog][data-staff-mode="unlock"]').isVisible()) await enterStaffPin(page, PIN);
      await page.click('[data-action="staff-search"]');
      await page.fill('#ticket-search-input', 'familia costa');
      await page.click('[data-action="search-submit"]');
      await expect(result.locator('[data-search-party]')).toHaveText(party, { timeout: WAIT_MS });
      await expect(result.locator('[data-search-handout]')).toHaveText([...handouts]);
      // The whole result in the picture: the handouts are below the fold of the panel.
      await result.locator('[data-search-handouts]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `search-party-${language}.png`) });
      await page.keyboard.press('Escape');
      await page.waitForSelector('#screen[data-screen="ready"]');
    }
    await runtime.core.setLanguage('en', null);
    // Only on request, so a test run never changes committed files.
    if (process.env['UPDATE_SCREENSHOTS'] === '1')
      for (const language of ['en', 'de', 'fr', 'es'])
        copyFileSync(join(SHOTS, `search-party-${language}.png`), join(DOC_SHOTS, `search-party-${language}.png`));
  });

  test('offline, the dialog says the search needs the issuer', async () => {
    const { page } = door!;
    await issuer!.stop();
    issuer = null;
    await page.click('[data-action="open-staff"]');
    // Still unlocked from the test before, or the PIN again.
    if (await page.locator('[data-staff-dialog][data-staff-mode="unlock"]').isVisible()) await enterStaffPin(page, PIN);
    await page.click('[data-action="staff-search"]');
    await page.fill('#ticket-search-input', 'smith');
    await page.click('[data-action="search-submit"]');
    await expect(page.locator('[data-search-problem]')).toHaveText('The search needs the issuer: no connection right now', {
      timeout: WAIT_MS,
    });
    await expect(page.locator('[data-search-results] li')).toHaveCount(0);
    await page.screenshot({ path: join(SHOTS, 'ticket-search-04-offline.png') });
    expect(pageErrors).toEqual([]);
  });
});
