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
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { scanInPage as scan, type KioskDoor } from '../support/door-harness.js';
import {
  createDoorScenario,
  E2E_SHOTS as SHOTS,
  publishScreenshot,
  SHORT_REPEAT_WINDOW_MS,
  type DoorScenario,
  type IssuedTicket as Ticket,
} from '../support/door-scenario.js';
import { shortHolder } from '../../protocol/id-check.js';

let scenario: DoorScenario;
let door: KioskDoor;
const tickets: Record<'ada' | 'bob' | 'cleo' | 'arabic' | 'de' | 'fr' | 'es', Ticket> = {} as never;
/** A right-to-left holder (docs/kiosk.md "Holder names"). */
const ARABIC = 'محمد علي';
/** The page's getComputedStyle as the function passed to evaluate sees it (the Node build has no DOM lib). */
declare function getComputedStyle(element: unknown): { readonly direction: string };

const issue = (holder: string, ...options: string[]): Promise<Ticket> => scenario.issue(holder, '--type', 'Bar', ...options);
const ticketStatus = (tid: string): Promise<string> => scenario.ticketStatus(tid);

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'id-check', eventName: 'Bar Night' });
  await scenario.cli('event', 'ticket-type', 'set', '--event', scenario.eid, '--type', 'Bar', '--id-check', 'age:18');
  tickets.ada = await issue('Ada Lovelace', '--dob', '1990-12-10');
  tickets.bob = await issue('Bob Young', '--dob', `${new Date().getUTCFullYear() - 15}-01-01`);
  tickets.cleo = await issue('Cleo Nodate');
  tickets.arabic = await issue(ARABIC, '--dob', '1990-12-10');
  for (const language of ['de', 'fr', 'es'] as const) tickets[language] = await issue('Ada Lovelace', '--dob', '1990-12-10');
  await scenario.startIssuer();
  door = await scenario.openDoor(browser, 'kiosk', { repeatReadWindowMs: SHORT_REPEAT_WINDOW_MS });
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test.describe.serial('ID checks at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('online: the ID screen asks first, nothing is checked in until Confirm; Confirm admits', async () => {
    const page = door.page;
    await scenario.enroll(door);
    await door.runtime.core.syncRevocations(); // the notes list, with the type's check and the bands

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
    const sent = scenario.kioskDb(
      'kiosk',
      (db) => db.prepare('SELECT id_checked FROM scans WHERE tid = ?').get(tickets.ada.tid) as { id_checked: number },
    );
    expect(sent.id_checked).toBe(1);
  });

  test('a right-to-left name on the ID screen is isolated in its own direction, ", 18+" after it', async () => {
    const page = door.page;
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
    const page = door.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.bob.qr);
    const prompt = page.locator('[data-id-check="age"][data-band="under"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('[data-id-check-band]')).toHaveText('Date of birth on record: UNDER 18');
    await page.locator('[data-action="id-check-deny"]').click();
    await expect(page.locator('[data-verdict="refuse"][data-reason="id_check_failed"]')).toBeVisible();
    await expect(page.locator('.verdict__reason')).toContainText('ID check failed');
    expect(await ticketStatus(tickets.bob.tid)).toBe('valid');
    const records = scenario.kioskDb('kiosk', (db) =>
      (db.prepare("SELECT tid, detail FROM audit_log WHERE kind = 'verdict' ORDER BY seq").all() as Array<{ tid: string; detail: string }>)
        .map((row): Record<string, unknown> => ({ tid: row.tid, ...(JSON.parse(row.detail) as Record<string, unknown>) }))
        .filter((record) => record['reason'] === 'id_check_failed'),
    );
    // This kiosk has no staff PIN: everyone is its technician, with no staff id (docs/kiosk.md "Staff PIN").
    expect(records).toEqual([expect.objectContaining({ tid: tickets.bob.tid, staff_id: null, role: 'technician', band: 'under' })]);
    expect(scenario.pageErrors).toEqual([]);
  });

  test('offline: the synced list gives the same prompt; Confirm admits offline, queued with id_checked', async () => {
    const page = door.page;
    await scenario.stopIssuer();
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.cleo.qr);
    const prompt = page.locator('[data-id-check="age"][data-band="unknown"]');
    await expect(prompt).toBeVisible();
    await expect(prompt.locator('[data-id-check-line]')).toHaveText('Check ID: name Cleo N., 18+');
    await page.locator('[data-action="id-check-confirm"]').click();
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    const queued = scenario.kioskDb(
      'kiosk',
      (db) =>
        db.prepare('SELECT id_checked, queue_state FROM scans WHERE tid = ?').get(tickets.cleo.tid) as {
          id_checked: number;
          queue_state: string;
        },
    );
    expect(queued).toEqual({ id_checked: 1, queue_state: 'pending' });
    expect(scenario.pageErrors).toEqual([]);
  });

  test('the ID screen in German, French and Spanish: its own word in each, Deny refuses in each', async () => {
    const page = door.page;
    await page.locator('[data-action="dismiss-verdict"]').click();
    const shots: Array<[string, string]> = [['id-check-prompt', 'id-check-en.png']];
    for (const [language, title, line] of [
      ['de', 'AUSWEIS PRÜFEN', 'Ausweis prüfen: Name Ada L., 18+'],
      ['fr', 'VÉRIFIER L’IDENTITÉ', 'Vérifier la pièce d’identité : nom Ada L., 18+'],
      ['es', 'COMPROBAR IDENTIDAD', 'Comprobar documento: nombre Ada L., 18+'],
    ] as const) {
      await door.runtime.core.setLanguage(language, null);
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
    await door.runtime.core.setLanguage('en', null);
    for (const [from, to] of shots) publishScreenshot(join(SHOTS, `${from}.png`), to);
    expect(scenario.pageErrors).toEqual([]);
  });
});
