/**
 * ID and age checks at the door, end to end (docs/kiosk.md "ID checks"): a real issuer (the built `ticket-issuer`
 * CLI, a child process, plain HTTP on loopback) with a type `age:18` and dates of birth, the real kiosk core behind
 * the web host with its API key in the real OS keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/id-checks.e2e.test.ts
 *
 * The ID screen asks "Check ID: name Ada L., 18+" before anything is checked in; Confirm admits (the issuer records
 * the entry as checked); Deny refuses `id_check_failed`, checks nothing in and is in the kiosk's audit log with the
 * staff id; offline the synced list gives the same prompt. The steps build on each other, so they run in order.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
import Database from 'better-sqlite3';
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
import { shortHolder } from '../../protocol/id-check.js';

const SHOTS = join(ROOT, 'test-results', 'e2e');
/** docs/kiosk-screens.md "ID checks": the ID screen in each language, copied there only with UPDATE_SCREENSHOTS=1. */
const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');
const WAIT_MS = 30_000;

interface Ticket {
  tid: string;
  qr: string;
}

let root: string;
let issuerDir: string;
let eid: string;
let port: number;
let issuer: RunningIssuer | null = null;
let browser: Browser | null = null;
let door: KioskDoor | null = null;
const pageErrors: string[] = [];
const tickets: Record<'ada' | 'bob' | 'cleo' | 'arabic' | 'de' | 'fr' | 'es', Ticket> = {} as never;
/** A right-to-left holder (docs/kiosk.md "Holder names"). */
const ARABIC = 'محمد علي';
/** The page's getComputedStyle as the function passed to evaluate sees it (the Node build has no DOM lib). */
declare function getComputedStyle(element: unknown): { readonly direction: string };

async function issue(holder: string, ...flags: string[]): Promise<Ticket> {
  const issued = await issuerCli<{ tickets: Ticket[] }>(
    issuerDir,
    'ticket',
    'issue',
    '--event',
    eid,
    '--holder',
    holder,
    '--type',
    'Bar',
    ...flags,
  );
  return issued.tickets[0]!;
}

async function ticketStatus(tid: string): Promise<string> {
  return (await issuerCli<{ status: string }>(issuerDir, 'ticket', 'show', tid)).status;
}

function kioskDb<T>(read: (db: Database.Database) => T): T {
  const db = new Database(join(root, 'kiosk', 'kiosk.db'), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'id-check-e2e-'));
  issuerDir = join(root, 'issuer');
  port = await freePort();
  await issuerCli(issuerDir, 'init', '--base-url', `http://${HOST}:${port}`, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Bar Night', '--date', start, '--venue', 'Hall')).eid;
  await issuerCli(issuerDir, 'event', 'ticket-type', 'set', '--event', eid, '--type', 'Bar', '--id-check', 'age:18');
  tickets.ada = await issue('Ada Lovelace', '--dob', '1990-12-10');
  tickets.bob = await issue('Bob Young', '--dob', `${new Date().getUTCFullYear() - 15}-01-01`);
  tickets.cleo = await issue('Cleo Nodate');
  tickets.arabic = await issue(ARABIC, '--dob', '1990-12-10');
  for (const language of ['de', 'fr', 'es'] as const) tickets[language] = await issue('Ada Lovelace', '--dob', '1990-12-10');
  issuer = await startIssuer(issuerDir, port);
  browser = workerBrowser;
  door = await openKioskDoor(browser, {
    dataDir: join(root, 'kiosk'),
    keyringService: `ticket-kiosk-e2e-id-check-${process.pid}`,
    repeatReadWindowMs: 300,
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

test.describe.serial('ID checks at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('online: the ID screen asks first, nothing is checked in until Confirm; Confirm admits', async () => {
    const page = door!.page;
    const { setup_qr } = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid);
    await page.waitForSelector('#screen[data-screen="setup"]');
    await scan(page, setup_qr);
    await page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
    await door!.runtime.core.syncRevocations(); // the notes list, with the type's check and the bands

    await scan(page, tickets.ada.qr);
    const prompt = page.locator('#screen[data-screen="id_check"] [data-id-check="age"][data-band="over"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('.idcheck__title')).toHaveText('CHECK ID');
    await expect(prompt.locator('[data-id-check-line]')).toHaveText('Check ID: name Ada L., 18+');
    await expect(prompt.locator('[data-icon="🪪"]')).toBeVisible();
    await page.screenshot({ path: join(SHOTS, 'id-check-prompt.png') });
    expect(await ticketStatus(tickets.ada.tid)).toBe('valid');

    // Another ticket meanwhile: refused, not checked in.
    await scan(page, tickets.cleo.qr);
    await expect(page.locator('[data-id-check-held]')).toHaveText('Finish the ID check first: Confirm or Deny, then scan again.');
    expect(await ticketStatus(tickets.cleo.tid)).toBe('valid');

    await page.locator('[data-action="id-check-confirm"]').click();
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    expect(await ticketStatus(tickets.ada.tid)).toBe('checked_in');
    const sent = kioskDb((db) => db.prepare('SELECT id_checked FROM scans WHERE tid = ?').get(tickets.ada.tid) as { id_checked: number });
    expect(sent.id_checked).toBe(1);
  });

  test('a right-to-left name on the ID screen is isolated in its own direction, ", 18+" after it', async () => {
    const page = door!.page;
    await scan(page, tickets.arabic.qr);
    const prompt = page.locator('#screen[data-screen="id_check"] [data-id-check="age"]');
    await expect(prompt).toBeVisible();
    const name = prompt.locator('[data-id-check-line] bdi[data-holder-name]');
    await expect(name).toHaveText(shortHolder(ARABIC));
    expect(await name.evaluate((element) => getComputedStyle(element).direction)).toBe('rtl');
    await expect(prompt.locator('[data-id-check-line]')).toHaveText(`Check ID: name ${shortHolder(ARABIC)}, 18+`);
    await page.screenshot({ path: join(SHOTS, 'id-check-prompt-rtl.png') });
    await page.locator('[data-action="id-check-confirm"]').click();
    // The ADMIT stays on screen, as after the test before (the next one dismisses it).
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
  });

  test('online: Deny refuses id_check_failed, checks nothing in, and is in the audit log', async () => {
    const page = door!.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.bob.qr);
    const prompt = page.locator('[data-id-check="age"][data-band="under"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('[data-id-check-band]')).toHaveText('Date of birth on record: UNDER 18');
    await page.locator('[data-action="id-check-deny"]').click();
    await expect(page.locator('[data-verdict="refuse"][data-reason="id_check_failed"]')).toBeVisible();
    await expect(page.locator('.verdict__reason')).toContainText('ID check failed');
    expect(await ticketStatus(tickets.bob.tid)).toBe('valid');
    const records = kioskDb((db) =>
      (db.prepare("SELECT tid, detail FROM audit_log WHERE kind = 'verdict' ORDER BY seq").all() as Array<{ tid: string; detail: string }>)
        .map((row): Record<string, unknown> => ({ tid: row.tid, ...(JSON.parse(row.detail) as Record<string, unknown>) }))
        .filter((record) => record['reason'] === 'id_check_failed'),
    );
    // This kiosk has no staff PIN: everyone is its technician, with no staff id (docs/kiosk.md "Staff PIN").
    expect(records).toEqual([expect.objectContaining({ tid: tickets.bob.tid, staff_id: null, role: 'technician', band: 'under' })]);
    expect(pageErrors).toEqual([]);
  });

  test('offline: the synced list gives the same prompt; Confirm admits offline, queued with id_checked', async () => {
    const page = door!.page;
    await issuer!.stop();
    issuer = null;
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.cleo.qr);
    const prompt = page.locator('[data-id-check="age"][data-band="unknown"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('[data-id-check-line]')).toHaveText('Check ID: name Cleo N., 18+');
    await page.locator('[data-action="id-check-confirm"]').click();
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    const queued = kioskDb(
      (db) =>
        db.prepare('SELECT id_checked, queue_state FROM scans WHERE tid = ?').get(tickets.cleo.tid) as {
          id_checked: number;
          queue_state: string;
        },
    );
    expect(queued).toEqual({ id_checked: 1, queue_state: 'pending' });
    expect(pageErrors).toEqual([]);
  });

  test('the ID screen in German, French and Spanish: its own word in each, Deny refuses in each', async () => {
    const page = door!.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    const shots: Array<[string, string]> = [['id-check-prompt', 'id-check-en.png']];
    for (const [language, title, line] of [
      ['de', 'AUSWEIS PRÜFEN', 'Ausweis prüfen: Name Ada L., 18+'],
      ['fr', 'VÉRIFIER L’IDENTITÉ', 'Vérifier la pièce d’identité : nom Ada L., 18+'],
      ['es', 'COMPROBAR IDENTIDAD', 'Comprobar documento: nombre Ada L., 18+'],
    ] as const) {
      await door!.runtime.core.setLanguage(language, null);
      await scan(page, tickets[language].qr);
      const prompt = page.locator('[data-id-check="age"][data-band="over"]');
      await expect(prompt.locator('.idcheck__title')).toHaveText(title);
      await expect(prompt.locator('[data-id-check-line]')).toHaveText(line);
      await page.screenshot({ path: join(SHOTS, `id-check-${language}.png`) });
      shots.push([`id-check-${language}`, `id-check-${language}.png`]);
      await page.locator('[data-action="id-check-deny"]').click();
      await expect(page.locator('[data-verdict="refuse"][data-reason="id_check_failed"]')).toBeVisible();
      await page.locator('[data-action="dismiss-verdict"]').click();
    }
    await door!.runtime.core.setLanguage('en', null);
    // Only on request, so a test run never changes committed files.
    if (process.env['UPDATE_SCREENSHOTS'] === '1')
      for (const [from, to] of shots) copyFileSync(join(SHOTS, `${from}.png`), join(DOC_SHOTS, to));
    expect(pageErrors).toEqual([]);
  });
});
