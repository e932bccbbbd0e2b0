/**
 * Attention notes at the door, end to end (docs/kiosk.md "Attention notes"): a real issuer (the built
 * `ticket-issuer` CLI, a child process, plain HTTP on loopback) with a type rule and ticket notes, the real
 * kiosk core behind the web host with its API key in the real OS keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/attention-notes.e2e.test.ts
 *
 * Online the issuer's `attention` answer makes the screen; offline the synced list makes the same one; a
 * supervisor's Override releases a held door and is in the kiosk's audit log (docs/kiosk.md "Attention notes"),
 * and the verdict's Details list its ticket (docs/kiosk.md "Verdict details"); the screen says its word in German,
 * French and Spanish too (docs/kiosk-screens.md "Attention notes"). The steps build on each other, so they run in
 * order.
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

/** Long enough for the steps made while the door is held; short enough to see the hold end by itself. */
const HOLD_SECONDS = 20;

let scenario: DoorScenario;
let door: KioskDoor;
const tickets: Record<'ada' | 'bob' | 'cleo' | 'dora', Ticket> = {} as never;

const issue = (holder: string, type: string, ...options: string[]): Promise<Ticket> => scenario.issue(holder, '--type', type, ...options);
const ticketStatus = (tid: string): Promise<string> => scenario.ticketStatus(tid);

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'attention', eventName: 'Notes Night' });
  await scenario.cli('event', 'ticket-type', 'set', '--event', scenario.eid, '--type', 'VIP', '--note', 'Wristband at the desk');
  tickets.ada = await issue('Ada', 'VIP', '--attention', '--note', 'Wheelchair user: side entrance');
  tickets.bob = await issue('Bob', 'Day');
  tickets.cleo = await issue('Cleo', 'Day', '--note', 'Press pass');
  tickets.dora = await issue('Dora', 'Day', '--attention', '--note', 'Escort to the balcony');
  await scenario.startIssuer();
  door = await scenario.openDoor(browser, 'kiosk', {
    repeatReadWindowMs: SHORT_REPEAT_WINDOW_MS,
    core: { attentionHoldSeconds: HOLD_SECONDS },
  });
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test.describe.serial('attention notes at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('online: ADMIT — ATTENTION with the notes large, held until Done; a scan meanwhile is refused, not checked in', async () => {
    const page = door.page;
    await scenario.enroll(door);
    // The notes list syncs beside the revocation list (after enrollment, on its timer); once more now, for the offline step.
    await door.runtime.core.syncRevocations();

    await scan(page, tickets.ada.qr);
    const verdict = page.locator('[data-verdict="admit"][data-attention="required"]');
    await expect(verdict).toBeVisible();
    await expect(verdict.locator('.verdict__word')).toHaveText('ADMIT — ATTENTION');
    await expect(verdict.locator('[data-icon="!"]')).toBeVisible();
    // The type's note first, then the ticket's.
    await expect(verdict.locator('[data-attention-notes] li')).toHaveText(['Wristband at the desk', 'Wheelchair user: side entrance']);
    await page.screenshot({ path: join(SHOTS, 'attention-admit.png') });
    expect(await ticketStatus(tickets.ada.tid)).toBe('checked_in');

    // Held: the next ticket is refused with "finish the note first" and not checked in.
    await scan(page, tickets.bob.qr);
    await expect(page.locator('[data-attention-held]')).toHaveText('Finish the note first: tap Done, then scan again.');
    await expect(verdict).toBeVisible();
    expect(await ticketStatus(tickets.bob.tid)).toBe('valid');

    await page.locator('[data-action="attention-done"]').click();
    await page.waitForSelector('#screen[data-screen="ready"]');
    expect((await door.runtime.core.getState()).attention_hold).toBeNull();
    await scan(page, tickets.bob.qr);
    await expect(page.locator('[data-verdict="admit"]')).toBeVisible();
    await expect(page.locator('[data-verdict="admit"]')).not.toHaveAttribute('data-attention', /.*/);
    expect(await ticketStatus(tickets.bob.tid)).toBe('checked_in');
  });

  test('offline: the synced list gives the same screen, and the hold ends by itself after its time', async () => {
    const page = door.page;
    await scenario.stopIssuer();
    await page.locator('[data-action="dismiss-verdict"]').click();
    await scan(page, tickets.cleo.qr);
    const verdict = page.locator('[data-verdict="admit"][data-attention="notes"]');
    await expect(verdict).toBeVisible();
    await expect(verdict.locator('.verdict__word')).toHaveText('ADMIT — ATTENTION');
    await expect(verdict.locator('[data-attention-notes] li')).toHaveText(['Press pass']);
    await expect(verdict.locator('[data-offline]')).toBeVisible();
    // No Done: the hold's time passes and Ready returns.
    await page.waitForSelector('#screen[data-screen="ready"]', { timeout: (HOLD_SECONDS + 20) * 1000 });
    expect(scenario.pageErrors).toEqual([]);
  });
  test('override: Details list the held ticket; Override (supervisor) releases the door, recorded in the audit log', async () => {
    const page = door.page;
    await scan(page, tickets.dora.qr);
    const verdict = page.locator('[data-verdict="admit"][data-attention="required"]');
    await expect(verdict.locator('[data-attention-notes] li')).toHaveText(['Escort to the balcony']);
    // This kiosk has no staff PIN: its staff functions are open (docs/kiosk.md "Staff PIN"), so both run at once.
    await page.locator('[data-action="verdict-details"]').click();
    await expect(page.locator('[data-verdict-details] [data-detail="ticket"] dd')).toHaveText(tickets.dora.tid);
    await page.screenshot({ path: join(SHOTS, 'attention-details.png') });
    await page.locator('[data-action="attention-override"]').click();
    await page.waitForSelector('#screen[data-screen="ready"]');
    expect((await door.runtime.core.getState()).attention_hold).toBeNull();
    const records = scenario.kioskDb('kiosk', (db) =>
      (db.prepare("SELECT detail FROM audit_log WHERE kind = 'staff' ORDER BY seq").all() as Array<{ detail: string }>)
        .map((row) => JSON.parse(row.detail) as Record<string, unknown>)
        .filter((record) => record.event === 'attention_override'),
    );
    expect(records).toEqual([expect.objectContaining({ tid: tickets.dora.tid, staff_id: null, role: 'technician' })]);
    expect(scenario.pageErrors).toEqual([]);
  });

  test('the attention screen in German, French and Spanish: its own word in each, the notes as written, held until Done', async () => {
    const page = door.page;
    // The issuer is back (the offline step stopped it), so each language's screen is the online one, like English's.
    await scenario.startIssuer();
    await door.runtime.core.syncRevocations();
    await page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
    const shots: Array<[string, string]> = [['attention-admit', 'attention-en.png']];
    for (const [language, word, reason, done, note] of [
      ['de', 'EINLASS — ACHTUNG', 'Gültiges Ticket — vor dem Einlass prüfen', 'Erledigt', 'Rollstuhl: Seiteneingang'],
      ['fr', 'ENTRÉE — ATTENTION', 'Billet valide — vérifier avant de laisser entrer', 'Terminé', 'Fauteuil roulant : entrée latérale'],
      ['es', 'PASE — ATENCIÓN', 'Entrada válida — comprobar antes de dejar pasar', 'Hecho', 'Silla de ruedas: entrada lateral'],
    ] as const) {
      // A fresh flagged ticket per language: a ticket is checked in once.
      const ticket = await issue('Ada', 'VIP', '--attention', '--note', note);
      await door.runtime.core.setLanguage(language, null);
      await scan(page, ticket.qr);
      const verdict = page.locator('[data-verdict="admit"][data-attention="required"]');
      await expect(verdict.locator('.verdict__word')).toHaveText(word);
      await expect(verdict.locator('[data-reason-text]')).toHaveText(reason);
      await expect(verdict.locator('[data-icon="!"]')).toBeVisible();
      // The notes are the issuer's words, untranslated: the type's first, then the ticket's.
      await expect(verdict.locator('[data-attention-notes] li')).toHaveText(['Wristband at the desk', note]);
      await expect(verdict.locator('[data-offline]')).toHaveCount(0);
      await expect(page.locator('[data-action="attention-done"]')).toHaveText(done);
      await page.screenshot({ path: join(SHOTS, `attention-${language}.png`) });
      shots.push([`attention-${language}`, `attention-${language}.png`]);
      expect(await ticketStatus(ticket.tid)).toBe('checked_in');
      await page.locator('[data-action="attention-done"]').click();
      await page.waitForSelector('#screen[data-screen="ready"]');
      expect((await door.runtime.core.getState()).attention_hold).toBeNull();
    }
    await door.runtime.core.setLanguage('en', null);
    for (const [from, to] of shots) publishScreenshot(join(SHOTS, `${from}.png`), to);
    expect(scenario.pageErrors).toEqual([]);
  });
});
