/**
 * A party ticket's manual check-in on the admin dashboard (docs/issuer.md "Admin dashboard"), end to end: the built
 * `ticket-issuer` CLI (init, admin-token reset, event, party tickets, `serve` on loopback) and the built dashboard in
 * real Chromium.
 *
 * The dialog asks how many of the party come in now, one large button a number up to what remains; nothing is sent
 * until one is picked. 3 of 5 come in: "3 of 5 in, 2 to come". Another door lets one in while the dialog is open: the
 * two picked are more than remain and the issuer refuses them, said in words, nothing checked in. The last one needs
 * no number. The same in German, with its plural. Needs the build (test/global-setup.ts does it).
 */
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { dashboardTest as test, eventually } from '../support/dashboard-page.js';
import { issuerCli, ROOT } from '../support/door-harness.js';

test('the manual check-in of a party asks how many come in, and says the answer in words', async ({ dashboard }) => {
  const { dataDir, baseUrl, adminToken, eid } = await dashboard.create({
    issuer: 'Harbour Lights Festival',
    event: 'Friday Night',
    venue: 'Pier 4',
  });
  const issue = async (holder: string, size: string): Promise<string> =>
    (await issuerCli<{ tickets: { tid: string }[] }>(dataDir, 'ticket', 'issue', '--event', eid, '--holder', holder, '--party', size))
      .tickets[0]!.tid;
  const family = await issue('Família Costa', '5');
  const group = await issue('Gruppe Berg', '3');
  await dashboard.start();
  const partyOf = async (tid: string): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/admin/api/events/${eid}/tickets?q=${tid}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    return ((await response.json()) as { tickets: { party: unknown }[] }).tickets[0]!.party;
  };

  const page = await dashboard.signIn();
  const lookUp = async (query: string): Promise<void> => {
    await page.fill('#lookup-query', query);
    await page.click('#lookup button[type=submit]');
  };
  const card = (tid: string) => page.locator(`#lookup-results li[data-tid="${tid}"]`);
  const dialog = page.locator('#manual-check-in-dialog');

  await lookUp('familia costa');
  await eventually(() => card(family).locator('dd').allTextContents()).toContain(
    'Ticket for 5 people: 0 inside, 0 admitted, 5 may still come',
  );
  await card(family).locator('[data-action=manual-check-in]').click();
  await expect(dialog.locator('legend')).toHaveText('How many of the party come in now?');
  expect(await dialog.locator('.people-number').allTextContents()).toEqual(['1', '2', '3', '4', '5']);
  expect(await dialog.locator('[aria-pressed=true]').count()).toBe(0);
  // A reason but no number: the dialog stays and says so; nothing is sent.
  await dialog.locator('#manual-check-in-dialog-reason').fill('phones dead, booking seen');
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(dialog.locator('[data-dialog-problem]')).toHaveText('Pick how many of the party come in now.');
  await expect(dialog).toBeVisible();
  expect(await partyOf(family)).toEqual({ size: 5, inside: 0, admitted_total: 0, remaining: 5 });
  // A number beyond the bounds typed in the field is no choice either.
  await dialog.locator('#manual-people').fill('6');
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(dialog).toBeVisible();
  await dialog.locator('.people-number[data-people="3"]').click();
  await expect(dialog.locator('.people-number[data-people="3"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(dialog.locator('.people-number[data-people="3"]')).toHaveText('✓ 3');
  await expect(dialog.locator('[data-dialog-problem]')).toHaveText('');
  await dialog.screenshot({ path: join(ROOT, 'test-results', 'e2e', 'dashboard-party-check-in.png') });
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(page.locator('#lookup-results [data-manual-party=valid]')).toHaveText('3 of 5 in, 2 to come');
  await eventually(() => card(family).locator('dd').allTextContents()).toContain(
    'Ticket for 5 people: 3 inside, 3 admitted, 2 may still come',
  );
  expect(await partyOf(family)).toEqual({ size: 5, inside: 3, admitted_total: 3, remaining: 2 });

  // The dialog asks up to the two who remain; meanwhile someone else lets one in, so two are more than remain.
  await card(family).locator('[data-action=manual-check-in]').click();
  expect(await dialog.locator('.people-number').allTextContents()).toEqual(['1', '2']);
  const elsewhere = await fetch(`${baseUrl}/admin/api/tickets/${family}/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'other desk', people: 1 }),
  });
  expect(((await elsewhere.json()) as { status: string }).status).toBe('valid');
  await dialog.locator('#manual-check-in-dialog-reason').fill('the rest of them');
  await dialog.locator('.people-number[data-people="2"]').click();
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(page.locator('#lookup-results [data-manual-party=party_exceeded]')).toHaveText(
    'Not checked in: only 1 more of this party may come in.',
  );
  expect(await partyOf(family)).toEqual({ size: 5, inside: 4, admitted_total: 4, remaining: 1 });

  // The last one: no number to pick.
  await eventually(() => card(family).locator('dd').allTextContents()).toContain(
    'Ticket for 5 people: 4 inside, 4 admitted, 1 may still come',
  );
  await card(family).locator('[data-action=manual-check-in]').click();
  expect(await dialog.locator('.people-picker').count()).toBe(0);
  await dialog.locator('#manual-check-in-dialog-reason').fill('the last of them');
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(page.locator('#lookup-results [data-manual-party=valid]')).toHaveText('All 5 of the party are in');
  await eventually(() => card(family).locator('[data-action=manual-check-in]').count()).toBe(0);

  // In German (choosing a language reloads the page), with its plural.
  await page.locator('#language-select').selectOption('de');
  await eventually(() => page.locator('#lookup h2').textContent()).toBe('Ticket suchen');
  await lookUp('gruppe berg');
  await eventually(() => card(group).locator('[data-action=manual-check-in]').count()).toBe(1);
  await card(group).locator('[data-action=manual-check-in]').click();
  await expect(dialog.locator('legend')).toHaveText('Wie viele der Gruppe kommen jetzt herein?');
  await dialog.locator('#manual-check-in-dialog-reason').fill('Handy leer');
  await dialog.locator('.people-number[data-people="2"]').click();
  await dialog.locator('#manual-check-in-dialog-confirm').click();
  await expect(page.locator('#lookup-results [data-manual-party=valid]')).toHaveText('2 von 3 drin, 1 kommt noch');

  // The page asks once before signing in and is refused (401): nothing else.
  expect(dashboard.pageErrors.filter((error) => !/status of 401/.test(error))).toEqual([]);
});
