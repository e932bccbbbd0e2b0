/**
 * Party tickets at the door, end to end (docs/kiosk.md "Party tickets"): a real issuer (the built `ticket-issuer` CLI,
 * a child process, plain HTTP on loopback) with a ticket for 5 people, the real kiosk core behind the web host with
 * its API key in the real OS keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/party.e2e.test.ts
 *
 * The party screen asks how many come in now before anything is checked in; pick 3 of 5 (ADMIT "3 of 5 in, 2 to
 * come"), scan again: 2 remaining, pick 2 (all in); the party screen in German, French and Spanish. At an exit the
 * same screen asks how many leave (1 to those inside): pick 3 of 5 (EXIT "2 of 5 still inside"), in all four
 * languages. The steps build on each other, so they run in order.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
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
/** docs/kiosk-screens.md "Party tickets": the party screen in each language, copied there only with UPDATE_SCREENSHOTS=1. */
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
const tickets: Record<'family' | 'de' | 'fr' | 'es' | 'leaving', Ticket> = {} as never;

async function issue(holder: string): Promise<Ticket> {
  const issued = await issuerCli<{ tickets: Ticket[] }>(issuerDir, 'ticket', 'issue', '--event', eid, '--holder', holder, '--party', '5');
  return issued.tickets[0]!;
}

async function party(tid: string): Promise<{ admitted_total: number; remaining: number; inside: number } | undefined> {
  return (await issuerCli<{ party?: { admitted_total: number; remaining: number; inside: number } }>(issuerDir, 'ticket', 'show', tid))
    .party;
}

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
  requireBuild();
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), 'party-e2e-'));
  issuerDir = join(root, 'issuer');
  port = await freePort();
  await issuerCli(issuerDir, 'init', '--base-url', `http://${HOST}:${port}`, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3600_000).toISOString();
  eid = (await issuerCli<{ eid: string }>(issuerDir, 'event', 'create', '--name', 'Family Day', '--date', start, '--venue', 'Park')).eid;
  tickets.family = await issue('Ada Family');
  for (const language of ['de', 'fr', 'es'] as const) tickets[language] = await issue('Ada Family');
  tickets.leaving = await issue('Ben Family');
  issuer = await startIssuer(issuerDir, port);
  browser = workerBrowser;
  door = await openKioskDoor(browser, {
    dataDir: join(root, 'kiosk'),
    keyringService: `ticket-kiosk-e2e-party-${process.pid}`,
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

test.describe.serial('party tickets at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('pick 3 of 5: nothing is checked in until the pick; ADMIT says "3 of 5 in, 2 to come"', async () => {
    const page = door!.page;
    const { setup_qr } = await issuerCli<{ setup_qr: string }>(issuerDir, 'scanner', 'setup', '--event', eid);
    await page.waitForSelector('#screen[data-screen="setup"]');
    await scan(page, setup_qr);
    await page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
    await door!.runtime.core.syncRevocations(); // the notes list, with the party sizes

    await scan(page, tickets.family.qr);
    const prompt = page.locator('#screen[data-screen="party"] [data-party="5"][data-remaining="5"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('.party__title')).toHaveText('PARTY');
    await expect(prompt.locator('.party__question')).toHaveText('How many come in now?');
    await expect(prompt.locator('[data-party-size]')).toHaveText('Ticket for 5 people');
    await expect(prompt.locator('[data-icon="👥"]')).toBeVisible();
    await expect(prompt.locator('[data-action="party-choose"]')).toHaveText(['1', '2', '3', '4', '5']);
    await page.screenshot({ path: join(SHOTS, 'party-en.png') });
    expect(await party(tickets.family.tid)).toMatchObject({ admitted_total: 0, remaining: 5 });

    await prompt.locator('[data-action="party-choose"][data-people="3"]').click();
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    await expect(page.locator('.verdict__reason')).toHaveText('3 of 5 in, 2 to come');
    expect(await party(tickets.family.tid)).toMatchObject({ admitted_total: 3, remaining: 2 });
  });

  test('scan again: 2 remaining; pick 2 and the party is in; a third scan is already used', async () => {
    const page = door!.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.family.qr);
    const prompt = page.locator('#screen[data-screen="party"] [data-party="5"][data-remaining="2"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('[data-party-known]')).toHaveText('3 in so far, 2 may still come');
    await expect(prompt.locator('[data-action="party-choose"]')).toHaveText(['1', '2']);
    await prompt.locator('[data-action="party-choose"][data-people="2"]').click();
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    await expect(page.locator('.verdict__reason')).toHaveText('All 5 of the party are in');
    expect(await party(tickets.family.tid)).toMatchObject({ admitted_total: 5, remaining: 0 });

    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.family.qr);
    await expect(page.locator('[data-verdict="refuse"][data-reason="already_used"]')).toBeVisible();
    expect(pageErrors).toEqual([]);
  });

  test('Cancel lets nobody in; the party screen in German, French and Spanish', async () => {
    const page = door!.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    const shots: Array<[string, string]> = [['party-en', 'party-en.png']];
    for (const [language, title, question, size] of [
      ['de', 'GRUPPE', 'Wie viele kommen jetzt hinein?', 'Ticket für 5 Personen'],
      ['fr', 'GROUPE', 'Combien entrent maintenant ?', 'Billet pour 5 personnes'],
      ['es', 'GRUPO', '¿Cuántos pasan ahora?', 'Entrada para 5 personas'],
    ] as const) {
      await door!.runtime.core.setLanguage(language, null);
      await scan(page, tickets[language].qr);
      const prompt = page.locator('#screen[data-screen="party"] [data-party="5"]');
      await expect(prompt.locator('.party__title')).toHaveText(title);
      await expect(prompt.locator('.party__question')).toHaveText(question);
      await expect(prompt.locator('[data-party-size]')).toHaveText(size);
      await page.screenshot({ path: join(SHOTS, `party-${language}.png`) });
      shots.push([`party-${language}`, `party-${language}.png`]);
      await page.locator('[data-action="party-cancel"]').click();
      await page.waitForSelector('#screen[data-screen="ready"]');
      expect(await party(tickets[language].tid)).toMatchObject({ admitted_total: 0, remaining: 5 });
    }
    await door!.runtime.core.setLanguage('en', null);
    // Only on request, so a test run never changes committed files.
    if (process.env['UPDATE_SCREENSHOTS'] === '1')
      for (const [from, to] of shots) copyFileSync(join(SHOTS, `${from}.png`), join(DOC_SHOTS, to));
    expect(pageErrors).toEqual([]);
  });

  test('at an exit: how many leave now (1..inside); EXIT says "2 of 5 still inside"; the exit prompt in four languages', async () => {
    const page = door!.page;
    // All 5 of another party come in first.
    await scan(page, tickets.leaving.qr);
    await page.locator('#screen[data-screen="party"] [data-action="party-choose"][data-people="5"]').click();
    await expect(page.locator('.verdict__reason')).toHaveText('All 5 of the party are in');
    await page.locator('[data-action="dismiss-verdict"]').click();
    await door!.runtime.core.setDirection('exit');
    await scan(page, tickets.leaving.qr);
    const prompt = page.locator('#screen[data-screen="party"] [data-party="5"][data-direction="exit"][data-inside="5"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('.party__title')).toHaveText('PARTY EXIT');
    await expect(prompt.locator('.party__question')).toHaveText('How many leave now?');
    await expect(prompt.locator('[data-party-known]')).toHaveText('5 of the party inside now');
    await expect(prompt.locator('[data-action="party-choose"]')).toHaveText(['1', '2', '3', '4', '5']);
    await expect(prompt.locator('[data-action="party-cancel"]')).toHaveText('Cancel: nobody leaves');
    await page.screenshot({ path: join(SHOTS, 'party-exit-en.png') });
    expect(await party(tickets.leaving.tid)).toMatchObject({ inside: 5 });

    await prompt.locator('[data-action="party-choose"][data-people="3"]').click();
    await expect(page.locator('[data-verdict="exit"]')).toBeVisible();
    await expect(page.locator('.verdict__reason')).toHaveText('2 of 5 still inside');
    expect(await party(tickets.leaving.tid)).toMatchObject({ inside: 2, admitted_total: 5 });
    await page.locator('[data-action="dismiss-verdict"]').click();

    const shots: Array<[string, string]> = [['party-exit-en', 'party-exit-en.png']];
    for (const [language, title, question, known] of [
      ['de', 'GRUPPE – AUSGANG', 'Wie viele gehen jetzt hinaus?', '2 der Gruppe sind jetzt drin'],
      ['fr', 'GROUPE – SORTIE', 'Combien sortent maintenant ?', '2 personnes du groupe à l’intérieur'],
      ['es', 'GRUPO – SALIDA', '¿Cuántos salen ahora?', '2 del grupo dentro ahora'],
    ] as const) {
      await door!.runtime.core.setLanguage(language, null);
      await page.waitForTimeout(400); // past the repeat-read window of the same code
      await scan(page, tickets.leaving.qr);
      const asked = page.locator('#screen[data-screen="party"] [data-direction="exit"][data-inside="2"]');
      await expect(asked.locator('.party__title')).toHaveText(title);
      await expect(asked.locator('.party__question')).toHaveText(question);
      await expect(asked.locator('[data-party-known]')).toHaveText(known);
      await page.screenshot({ path: join(SHOTS, `party-exit-${language}.png`) });
      shots.push([`party-exit-${language}`, `party-exit-${language}.png`]);
      await page.locator('[data-action="party-cancel"]').click();
      await page.waitForSelector('#screen[data-screen="ready"]');
    }
    expect(await party(tickets.leaving.tid)).toMatchObject({ inside: 2 });
    await door!.runtime.core.setLanguage('en', null);
    await door!.runtime.core.setDirection('entry');
    if (process.env['UPDATE_SCREENSHOTS'] === '1')
      for (const [from, to] of shots) copyFileSync(join(SHOTS, `${from}.png`), join(DOC_SHOTS, to));
    expect(pageErrors).toEqual([]);
  });
});
