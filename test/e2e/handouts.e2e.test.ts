/**
 * Handouts at the door, end to end (docs/kiosk.md "Handouts"): a real issuer (the built `ticket-issuer` CLI, a child
 * process, plain HTTP on loopback) with a type's items and a ticket's own, the real kiosk core behind the web host
 * with its API key in the real OS keyring, and the built screens in real Chromium.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/handouts.e2e.test.ts
 *
 * The ADMIT screen lists the items; one tap gives one; an item given at another scanner is refused with when and
 * where; a handout station shows HANDOUT and never checks in; the screen in German, French and Spanish
 * (docs/kiosk-screens.md "Handouts"). The steps build on each other, so they run in order.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { scanInPage as scan, type KioskDoor } from '../support/door-harness.js';
import {
  createDoorScenario,
  E2E_SHOTS as SHOTS,
  publishScreenshot,
  SHORT_REPEAT_WINDOW_MS,
  type DoorScenario,
  type IssuedTicket as Ticket,
} from '../support/door-scenario.js';

let scenario: DoorScenario;
let browser: Browser;

const issue = (holder: string, ...options: string[]): Promise<Ticket> => scenario.issue(holder, '--type', 'VIP', ...options);
const ticketStatus = (tid: string): Promise<string> => scenario.ticketStatus(tid);
const door = (name: string): Promise<KioskDoor> => scenario.openDoor(browser, name, { repeatReadWindowMs: SHORT_REPEAT_WINDOW_MS });

/** Another scanner, "Bar West" at gate West, gives `item` to `tid` over HTTP. */
async function giveElsewhere(tid: string, item: string): Promise<void> {
  const { setup_qr } = await scenario.cli<{ setup_qr: string }>('scanner', 'setup', '--event', scenario.eid, '--gate', 'West');
  const base = scenario.base;
  const enrolled = await fetch(`${base}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: decodeSetupCode(setup_qr).token, scanner_id: randomUUID(), scanner_name: 'Bar West' }),
  });
  const { api_key } = (await enrolled.json()) as { api_key: string };
  const answer = await fetch(`${base}/api/v1/tickets/handouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handout_id: randomUUID(), tid, eid: scenario.eid, item, given_at: new Date().toISOString() }),
  });
  expect(((await answer.json()) as { status: string }).status).toBe('given');
}

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'handouts', eventName: 'Merch Night' });
  await scenario.cli(
    'event',
    'ticket-type',
    'set',
    '--event',
    scenario.eid,
    '--type',
    'VIP',
    '--handout',
    'wristband',
    '--handout',
    '2 drink voucher',
  );
  await scenario.startIssuer();
  browser = workerBrowser;
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test.describe.serial('handouts at the kiosk, end to end (real issuer, web host, keyring, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('ADMIT lists the items; one tap gives one; an item given at another scanner is refused with when and where', async () => {
    const entry = await door('entry');
    const page = entry.page;
    await scenario.enroll(entry, '--gate', 'North');

    const ada = await issue('Ada', '--handout', 'T-shirt M');
    await giveElsewhere(ada.tid, 'wristband');
    await scan(page, ada.qr);
    const verdict = page.locator('[data-verdict="admit"]');
    await expect(verdict.locator('.verdict__word')).toHaveText('ADMIT');
    await expect(verdict.locator('[data-handout]')).toHaveCount(3);
    expect(await ticketStatus(ada.tid)).toBe('checked_in');
    // The wristband was given at the bar: all given, with when and where.
    const wristband = verdict.locator('[data-handout="wristband"]');
    await expect(wristband).toHaveAttribute('data-left', '0');
    await expect(wristband).toBeDisabled();
    await expect(wristband.locator('[data-handout-last]')).toContainText('Bar West (West)');
    // One tap, one voucher; then the second; the third button is gone to "All given".
    const vouchers = verdict.locator('[data-handout="drink voucher"]');
    await expect(vouchers).toHaveAttribute('data-left', '2');
    await vouchers.click();
    await expect(vouchers).toHaveAttribute('data-left', '1');
    await vouchers.click();
    await expect(vouchers).toHaveAttribute('data-left', '0');
    await expect(vouchers).toContainText('All given');
    await page.locator('[data-handout="T-shirt M"]').click();
    await expect(page.locator('[data-handout="T-shirt M"]')).toHaveAttribute('data-left', '0');
    const shown = await scenario.cli<{ handouts: Array<{ item: string; given: unknown[] }> }>('ticket', 'show', ada.tid);
    expect(shown.handouts.map((handout) => [handout.item, handout.given.length])).toEqual([
      ['wristband', 1],
      ['drink voucher', 2],
      ['T-shirt M', 1],
    ]);

    // A ticket whose wristband another scanner gave after the kiosk's answer: the tap is refused by the issuer.
    const bob = await issue('Bob');
    await scan(page, bob.qr);
    const second = page.locator('[data-verdict="admit"] [data-handout="wristband"]');
    await expect(second).toHaveAttribute('data-left', '1');
    await giveElsewhere(bob.tid, 'wristband');
    await second.click();
    const note = page.locator('[data-handout-note="refused_given"]');
    await expect(note).toContainText('wristband already given');
    await expect(note).toContainText('Bar West (West)');
    await expect(page.locator('[data-verdict="admit"] [data-handout="wristband"]')).toHaveAttribute('data-left', '0');
    await page.screenshot({ path: join(SHOTS, 'handouts-en.png') });
    expect(scenario.pageErrors).toEqual([]);
  });

  test('the handout screen in German, French and Spanish', async () => {
    const entry = scenario.doors[0]!;
    const page = entry.page;
    const shots: Array<[string, string]> = [['handouts-en', 'handouts-en.png']];
    for (const [language, word, give] of [
      ['de', 'EINLASS', 'drink voucher ×2 ausgeben'],
      ['fr', 'ENTRÉE', 'Remettre drink voucher ×2'],
      ['es', 'PASE', 'Entregar drink voucher ×2'],
    ] as const) {
      const ticket = await issue('Ada');
      await giveElsewhere(ticket.tid, 'wristband');
      await entry.runtime.core.setLanguage(language, null);
      await scan(page, ticket.qr);
      const verdict = page.locator('[data-verdict="admit"]');
      await expect(verdict.locator('.verdict__word')).toHaveText(word);
      await expect(verdict.locator('[data-handout="drink voucher"]')).toContainText(give);
      await verdict.locator('[data-handout="drink voucher"]').click();
      await expect(verdict.locator('[data-handout="drink voucher"]')).toHaveAttribute('data-left', '1');
      await page.screenshot({ path: join(SHOTS, `handouts-${language}.png`) });
      shots.push([`handouts-${language}`, `handouts-${language}.png`]);
      await page.locator('[data-action="dismiss-verdict"]').click();
      await page.waitForSelector('#screen[data-screen="ready"]');
    }
    await entry.runtime.core.setLanguage('en', null);
    for (const [from, to] of shots) publishScreenshot(join(SHOTS, `${from}.png`), to);
    expect(scenario.pageErrors).toEqual([]);
  });

  test('a handout station shows HANDOUT with the items and never checks in', async () => {
    const station = await door('station');
    const page = station.page;
    await scenario.enroll(station, '--role', 'handout');
    await station.runtime.core.heartbeat();
    const cleo = await issue('Cleo');
    await scan(page, cleo.qr);
    const verdict = page.locator('[data-verdict="handout"]');
    await expect(verdict.locator('.verdict__word')).toHaveText('HANDOUT');
    await expect(verdict.locator('[data-reason-text]')).toHaveText('Handout station — nothing is checked in');
    await verdict.locator('[data-handout="wristband"]').click();
    await expect(verdict.locator('[data-handout="wristband"]')).toHaveAttribute('data-left', '0');
    await page.screenshot({ path: join(SHOTS, 'handouts-station.png') });
    expect(await ticketStatus(cleo.tid)).toBe('valid');
    publishScreenshot(join(SHOTS, 'handouts-station.png'), 'handouts-station.png');
    expect(scenario.pageErrors).toEqual([]);
  });
});
